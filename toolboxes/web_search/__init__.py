"""ovos-web-search-tools: ``web_search`` and ``fetch_page``, safe by construction.

``web_search(query, max_results)`` has upstream's names and result shape (``query``,
``results: [{title, url, snippet}]``) plus a ``notice`` that the results are untrusted web
content. ``fetch_page(url, offset)`` returns a page's readable text, a slice at a time.

Config keys: see :class:`~ovos_agentic_loop_toolboxes.web_search.settings.WebSearchSettings`
(and the README). The search backend is ``ddgs`` unless ``searxng_url`` is set. fetch_page goes
through the SSRF guard (``guard.py``) and the bounded, pinned fetcher (``fetch.py``).

Every failure (no network, a rate limit, a timeout, a refused URL) is raised as
:class:`WebToolError` with a message for the model; the loop shows it as the tool's result.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

import httpx
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolOutput
from ovos_utils.log import LOG
from pydantic import ConfigDict, Field

from ovos_agentic_loop_toolboxes._core.toolbox import BundledToolBox
from ovos_agentic_loop_toolboxes.web_search.backends import make_backend
from ovos_agentic_loop_toolboxes.web_search.errors import BlockedURL, WebToolError
from ovos_agentic_loop_toolboxes.web_search.extract import INSTALL_HINT, missing_packages, readable_text
from ovos_agentic_loop_toolboxes.web_search.fetch import LazyClient, PageFetcher
from ovos_agentic_loop_toolboxes.web_search.guard import domain_listed
from ovos_agentic_loop_toolboxes.web_search.settings import (
    TOOLBOX_ID,
    WebSearchSettings,
    normalise_domain,
    parse_settings,
)
from ovos_agentic_loop_toolboxes.web_search.untrusted import NOTICE, clean_text, enclose

__all__ = [
    "BlockedURL",
    "FetchPageArgs",
    "FetchPageOutput",
    "WebSearchArgs",
    "WebSearchOutput",
    "WebSearchSettings",
    "WebSearchToolBox",
    "WebToolError",
]

_MAX_TITLE = 200
_MAX_SNIPPET = 400


class WebSearchArgs(ToolArguments):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(..., min_length=1, max_length=500, description="What to search for.")
    max_results: int = Field(5, ge=1, description="How many results to return.")


class WebSearchOutput(ToolOutput):
    notice: str = Field(..., description="How to treat the results: untrusted data.")
    query: str = Field(..., description="The query that was run.")
    results: list[dict[str, str]] = Field(..., description="Results, each with title, url and snippet.")


class FetchPageArgs(ToolArguments):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(..., min_length=1, max_length=2048, description="Full http(s) URL of the page.")
    offset: int = Field(0, ge=0, description="Character to start at, to read on in a long page.")


class FetchPageOutput(ToolOutput):
    url: str = Field(..., description="The page's final URL, after redirects.")
    title: str = Field(..., description="The page's title.")
    notice: str = Field(..., description="How to treat the text: untrusted data.")
    truncated: bool = Field(..., description="True when more text follows (see note and next_offset).")
    note: str = Field(..., description="What part of the page this is.")
    next_offset: int | None = Field(..., description="The offset to read on from; null at the end.")
    text: str = Field(..., description="The page's readable text, between begin/end markers.")


class WebSearchToolBox(BundledToolBox):
    """Web search (ddgs or SearXNG) and safe page reading for the agent loop."""

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        # Everything discover_tools() needs is set before ToolBox.__init__, which swallows errors.
        self.settings: WebSearchSettings = parse_settings(config)
        self._wire(LazyClient(self.settings))
        # A tool whose package is missing is not offered (it could only fail when called); the
        # operator reads here which extra brings it back.
        self.unavailable = self._unavailable_tools()
        for tool, why in self.unavailable.items():
            LOG.warning(f"{TOOLBOX_ID}: {tool} is not offered: {why}")
        super().__init__(toolbox_id=TOOLBOX_ID, config=config, bus=bus)

    def why_no_tools(self) -> str:
        reasons = "; ".join(f"{tool}: {why}" for tool, why in self.unavailable.items())
        return reasons or "check its config section"

    def _unavailable_tools(self) -> dict[str, str]:
        unavailable: dict[str, str] = {}
        if missing := missing_packages(*self._backend.needs):
            unavailable["web_search"] = (
                f"the {' and '.join(missing)} package is not installed; install the web extra "
                f"({INSTALL_HINT}) or set searxng_url"
            )
        if self.settings.allow_fetch and (missing := missing_packages("trafilatura")):
            unavailable["fetch_page"] = (
                f"the {' and '.join(missing)} package (page text extraction) is not installed; "
                f"install the web extra ({INSTALL_HINT})"
            )
        return unavailable

    def use_transport(self, transport: httpx.BaseTransport) -> None:
        """Send every request through ``transport`` (tests; a custom network stack)."""
        self._wire(LazyClient(self.settings, transport))

    def _wire(self, client: LazyClient) -> None:
        self._backend = make_backend(self.settings, client)
        self._fetcher = PageFetcher(self.settings, client)

    def discover_tools(self) -> list[AgentTool]:
        tools = []
        if "web_search" not in self.unavailable:
            tools.append(
                AgentTool(
                    name="web_search",
                    description="Search the web; returns title, url and snippet of each result.",
                    argument_schema=WebSearchArgs,
                    output_schema=WebSearchOutput,
                    tool_call=self.web_search,
                )
            )
        if self.settings.allow_fetch and "fetch_page" not in self.unavailable:
            tools.append(
                AgentTool(
                    name="fetch_page",
                    description="Read the text of a web page (an http/https URL, e.g. from web_search).",
                    argument_schema=FetchPageArgs,
                    output_schema=FetchPageOutput,
                    tool_call=self.fetch_page,
                )
            )
        return tools

    # -- the tools -----------------------------------------------------------------------------
    def web_search(self, args: WebSearchArgs) -> WebSearchOutput:
        query = " ".join(args.query.split())
        if not query:
            raise WebToolError("the query is empty; write the words to search for")
        wanted = min(args.max_results, self.settings.max_results)
        results: list[dict[str, str]] = []
        seen: set[str] = set()
        for item in self._backend.search(query, wanted):
            url = item["url"].strip()
            if not url.startswith(("http://", "https://")) or url in seen or self._blocked(url):
                continue
            seen.add(url)
            results.append(
                {
                    "title": _cut(clean_text(item["title"]), _MAX_TITLE),
                    "url": url,
                    "snippet": _cut(clean_text(item["snippet"]), _MAX_SNIPPET),
                }
            )
        return WebSearchOutput(notice=NOTICE, query=query, results=results[:wanted])

    def fetch_page(self, args: FetchPageArgs) -> FetchPageOutput:
        page = self._fetcher.fetch(args.url)
        title, text = readable_text(page)
        total = len(text)
        if args.offset >= total:
            raise WebToolError(f"offset {args.offset} is past the end of the page text ({total} characters)")
        end = min(total, args.offset + self.settings.max_page_chars)
        more = end < total
        note = f"characters {args.offset}-{end} of {total}"
        note += f"; call fetch_page with offset={end} to read on" if more else " (the end of the page)"
        if page.truncated:
            note += f"; the page is larger than {self.settings.max_page_bytes} bytes, only its start was read"
        return FetchPageOutput(
            url=page.url,
            title=_cut(title, _MAX_TITLE),
            notice=NOTICE,
            truncated=more or page.truncated,
            note=note,
            next_offset=end if more else None,
            text=enclose(text[args.offset : end]),
        )

    # -- for doctor ----------------------------------------------------------------------------
    def diagnostics(self) -> list[str]:
        """Human-readable status lines: backend, fetch_page and its SSRF guard."""
        s = self.settings
        lines = [f"search: {self._backend.describe()}; at most {s.max_results} results"]
        if not s.allow_fetch:
            return [*lines, "fetch_page: off (allow_fetch is false)"]
        lines.append(f"fetch_page: on, page text through {_package('trafilatura')}")
        if s.allow_private:
            lines.append(
                "SSRF guard: allow_private is TRUE: loopback, private, link-local and CGNAT addresses may be "
                "read; cloud metadata, multicast and unspecified addresses stay refused"
            )
        else:
            lines.append(
                "SSRF guard: on: only http(s); loopback, private, link-local, CGNAT, multicast, unspecified "
                "and cloud metadata addresses refused on every redirect hop; connections pinned to the "
                "checked address"
            )
        lines.append(
            f"limits: {s.max_redirects} redirects, {s.max_page_bytes} bytes, {s.fetch_timeout:g} s per page; "
            f"{s.max_page_chars} characters per call"
        )
        if s.allowed_domains:
            lines.append(f"allowed domains: {', '.join(s.allowed_domains)}")
        if s.blocked_domains:
            lines.append(f"blocked domains: {', '.join(s.blocked_domains)}")
        return lines

    def _blocked(self, url: str) -> bool:
        try:
            host = normalise_domain(httpx.URL(url).host)
        except httpx.InvalidURL:
            return True
        return domain_listed(host, self.settings.blocked_domains)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _package(name: str) -> str:
    try:
        return f"{name} {version(name)}"
    except PackageNotFoundError:
        return f"{name} NOT INSTALLED ({INSTALL_HINT})"
