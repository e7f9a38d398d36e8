"""The ``ovos-web-search-tools`` section, parsed once by the toolbox core into a strict, frozen model.

Strict on purpose: a typo in a security switch must not be guessed at (``"allow_private":
"false"`` would be truthy in Python). A wrong type or a value out of range is a
``ToolboxConfigError`` (a ``ValueError``) naming the key; an unknown key is logged by name.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError
from ovos_agentic_loop_toolboxes._core.settings import ToolboxSettings
from ovos_agentic_loop_toolboxes._core.settings import parse_settings as parse_section

__all__ = ["DEFAULT_USER_AGENT", "TOOLBOX_ID", "WebSearchSettings", "parse_settings"]

TOOLBOX_ID = "ovos-web-search-tools"
DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; ovos-agentic-loop web tools)"


class WebSearchSettings(ToolboxSettings):
    """Every key of the toolbox section, with its default."""

    backend: Literal["ddgs", "searxng"] | None = Field(
        default=None,
        description="'ddgs' (metasearch through the ddgs library) or 'searxng' (a SearXNG instance's JSON "
        "API). Default: None, which means 'searxng' when searxng_url is set and 'ddgs' otherwise.",
    )
    searxng_url: str | None = Field(
        default=None,
        description="Base URL of a SearXNG instance whose settings.yml enables the 'json' format, e.g. "
        "'http://127.0.0.1:8888'. Trusted configuration: it may be a private address. Default: None.",
    )
    max_results: int = Field(
        default=5, ge=1, le=50, description="Cap on the results of one web_search call. Default: 5."
    )
    region: str = Field(
        default="us-en", min_length=2, description="ddgs region, e.g. 'pt-pt'. Default: us-en."
    )
    safesearch: Literal["on", "moderate", "off"] = Field(default="moderate", description="Default: moderate.")
    search_timeout: float = Field(
        default=10.0, gt=0, le=120, description="Seconds one search may take. Default: 10."
    )
    allow_fetch: bool = Field(default=True, description="Offer the fetch_page tool. Default: true.")
    fetch_timeout: float = Field(
        default=15.0,
        gt=0,
        le=300,
        description="Seconds one fetch_page may take, redirects included. Default: 15.",
    )
    max_page_bytes: int = Field(
        default=2_000_000,
        ge=1024,
        le=50_000_000,
        description="Bytes of a page read (after decompression); the rest is not downloaded. Default: 2 MB.",
    )
    max_page_chars: int = Field(
        default=3000,
        ge=200,
        le=200_000,
        description="Characters of page text returned per fetch_page call; the model reads on with "
        "'offset'. Default 3000, so one page fits the loop's default observation size (4000).",
    )
    max_redirects: int = Field(default=5, ge=0, le=20, description="Redirects followed. Default: 5.")
    allowed_domains: list[str] = Field(
        default_factory=list,
        description="When not empty, fetch_page reads only these domains and their subdomains. Default: [].",
    )
    blocked_domains: list[str] = Field(
        default_factory=list,
        description="Domains (and subdomains) fetch_page refuses and web_search leaves out. Default: [].",
    )
    allow_private: bool = Field(
        default=False,
        description="Let fetch_page read loopback, private, link-local and CGNAT addresses (home servers, "
        "tests). Cloud metadata addresses stay refused. Default: false.",
    )
    user_agent: str = Field(default=DEFAULT_USER_AGENT, min_length=1, description="User-Agent header.")

    @field_validator("searxng_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL such as 'http://127.0.0.1:8888'")
        return value.rstrip("/")

    @field_validator("allowed_domains", "blocked_domains")
    @classmethod
    def _domains(cls, values: list[str]) -> list[str]:
        cleaned = []
        for value in values:
            domain = normalise_domain(value.removeprefix("*."))
            if not domain or "/" in domain or ":" in domain:
                raise ValueError(f"{value!r} is not a domain name; write e.g. 'wikipedia.org'")
            cleaned.append(domain)
        return cleaned

    @property
    def effective_backend(self) -> Literal["ddgs", "searxng"]:
        if self.backend is not None:
            return self.backend
        return "searxng" if self.searxng_url else "ddgs"


def normalise_domain(name: str) -> str:
    """Lower case, no trailing dot, IDNA (punycode) form, so 'Bücher.DE.' matches 'xn--bcher-kva.de'."""
    name = name.strip().rstrip(".").lower()
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def parse_settings(raw: dict[str, Any] | None) -> WebSearchSettings:
    """The section parsed; :class:`ToolboxConfigError` naming the key when it cannot be used."""
    settings = parse_section(WebSearchSettings, TOOLBOX_ID, raw)
    if settings.effective_backend == "searxng" and not settings.searxng_url:
        raise ToolboxConfigError(
            f"{TOOLBOX_ID}: invalid config: key 'backend': 'searxng' needs 'searxng_url'"
        )
    return settings
