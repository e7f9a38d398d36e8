"""Search backends: ``ddgs`` (metasearch, the maintained successor of duckduckgo-search) and SearXNG.

Each turns a query into ``[{"title", "url", "snippet"}]`` (upstream's result shape) or raises
:class:`WebToolError` with what went wrong in words the model can act on: no network, the
backend is rate-limiting, a timeout. "No results" is an empty list, not an error.
"""

from __future__ import annotations

import math
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

import httpx

from ovos_agentic_loop_toolboxes.web_search.errors import WebToolError
from ovos_agentic_loop_toolboxes.web_search.extract import INSTALL_HINT
from ovos_agentic_loop_toolboxes.web_search.fetch import LazyClient
from ovos_agentic_loop_toolboxes.web_search.settings import WebSearchSettings

__all__ = ["DdgsBackend", "SearchBackend", "SearxngBackend", "make_backend"]

_SEARXNG_SAFESEARCH = {"off": 0, "moderate": 1, "on": 2}


class SearchBackend(Protocol):
    name: str
    # Optional packages the backend imports when it searches (the `web` extra).
    needs: tuple[str, ...]

    def search(self, query: str, max_results: int) -> list[dict[str, str]]: ...

    def describe(self) -> str: ...


def make_backend(settings: WebSearchSettings, client: LazyClient) -> SearchBackend:
    if settings.effective_backend == "searxng":
        return SearxngBackend(settings, client)
    return DdgsBackend(settings)


class DdgsBackend:
    """Search through the ``ddgs`` library (several engines, no API key)."""

    name = "ddgs"
    needs: tuple[str, ...] = ("ddgs",)

    def __init__(self, settings: WebSearchSettings) -> None:
        self._settings = settings

    def describe(self) -> str:
        try:
            found = f"ddgs {version('ddgs')}"
        except PackageNotFoundError:
            found = f"ddgs NOT INSTALLED ({INSTALL_HINT}, or set searxng_url)"
        return (
            f"backend ddgs ({found}), region {self._settings.region}, safesearch {self._settings.safesearch}"
        )

    def search(self, query: str, max_results: int) -> list[dict[str, str]]:
        try:
            from ddgs import DDGS
            from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
        except ImportError as exc:
            raise WebToolError(
                f"web search is not available: the ddgs package is not installed ({exc}); the operator can "
                f"install it with {INSTALL_HINT} or set searxng_url. Answer without searching."
            ) from None
        settings = self._settings
        try:
            raw = DDGS(timeout=math.ceil(settings.search_timeout)).text(
                query, region=settings.region, safesearch=settings.safesearch, max_results=max_results
            )
        except RatelimitException as exc:
            raise WebToolError(
                f"the search engines are rate-limiting this assistant ({exc}); {_LATER}"
            ) from None
        except TimeoutException as exc:
            raise WebToolError(f"the search timed out ({exc}); {_LATER}") from None
        except DDGSException as exc:
            if "no results" in str(exc).lower():
                return []
            raise WebToolError(
                f"the search failed: no network or the engines refused ({exc}); {_LATER}"
            ) from None
        return [
            {
                "title": str(item.get("title") or ""),
                "url": str(item.get("href") or item.get("url") or ""),
                "snippet": str(item.get("body") or item.get("snippet") or ""),
            }
            for item in raw or []
            if isinstance(item, dict)
        ]


class SearxngBackend:
    """Search through a SearXNG instance's JSON API (``/search?format=json``)."""

    name = "searxng"
    needs: tuple[str, ...] = ()

    def __init__(self, settings: WebSearchSettings, client: LazyClient) -> None:
        self._settings = settings
        self._client = client
        self._url = f"{settings.searxng_url}/search"

    def describe(self) -> str:
        return f"backend searxng at {self._settings.searxng_url}"

    def search(self, query: str, max_results: int) -> list[dict[str, str]]:
        params: dict[str, str | int] = {
            "q": query,
            "format": "json",
            "pageno": 1,
            "safesearch": _SEARXNG_SAFESEARCH[self._settings.safesearch],
        }
        try:
            response = self._client.get().get(
                self._url, params=params, timeout=self._settings.search_timeout, follow_redirects=True
            )
        except httpx.TimeoutException:
            raise WebToolError(
                f"the search service did not answer within {self._settings.search_timeout:g} seconds; "
                f"{_LATER}"
            ) from None
        except httpx.HTTPError as exc:
            raise WebToolError(
                f"the search service at {self._settings.searxng_url} cannot be reached "
                f"({type(exc).__name__}: {exc}); {_LATER}"
            ) from None
        return _searxng_results(response, max_results)


def _searxng_results(response: httpx.Response, max_results: int) -> list[dict[str, str]]:
    if response.status_code == 429:
        raise WebToolError(f"the search service is rate-limiting this assistant (HTTP 429); {_LATER}")
    if response.status_code == 403:
        raise WebToolError(
            "the search service refused the JSON API (HTTP 403): its operator must add 'json' to "
            f"search.formats in SearXNG's settings.yml; {_LATER}"
        )
    if response.status_code >= 400:
        raise WebToolError(f"the search service answered HTTP {response.status_code}; {_LATER}")
    try:
        data: Any = response.json()
    except ValueError:
        raise WebToolError(f"the search service answered something that is not JSON; {_LATER}") from None
    items = data.get("results") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise WebToolError(f"the search service's answer has no 'results' list; {_LATER}")
    results = [
        {
            "title": str(item.get("title") or ""),
            "url": str(item.get("url") or ""),
            "snippet": str(item.get("content") or ""),
        }
        for item in items
        if isinstance(item, dict)
    ][:max_results]
    unresponsive = data.get("unresponsive_engines") or []
    if not results and unresponsive:
        engines = ", ".join(str(e[0] if isinstance(e, list) and e else e) for e in unresponsive)
        raise WebToolError(
            f"the search engines behind the search service did not answer ({engines}); {_LATER}"
        )
    return results


_LATER = "try again later with other words, or answer from what you know and say that you could not search"
