"""Reading one web page safely: every hop checked, the connection pinned, every size bounded.

Redirects are followed here, one hop at a time, so that each hop's URL and resolved address
pass the guard (``guard.py``) before anything is sent to it. The request goes to the address
the guard checked, with the real name in the ``Host`` header and in TLS SNI (httpx's
``sni_hostname`` extension), so the certificate is still verified for the name while the name
is never looked up again. The client keeps no connections alive: a pooled TLS connection to
one address must not be reused for another name served from the same address.

Bounds: ``max_redirects`` hops, ``max_page_bytes`` of (decompressed) body read, after which the
download stops, and ``fetch_timeout`` seconds for the whole fetch, checked between chunks so a
server that drips one byte at a time is cut off too.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy

import httpx

from ovos_agentic_loop_toolboxes.web_search import guard
from ovos_agentic_loop_toolboxes.web_search.errors import BlockedURL, WebToolError
from ovos_agentic_loop_toolboxes.web_search.settings import WebSearchSettings

__all__ = ["LazyClient", "PageFetcher", "RawPage", "content_kind", "new_client"]

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1"
# Uncompressed bodies: max_page_bytes then bounds memory too. (A server that compresses anyway is
# still decoded by httpx, one network chunk at a time, before the cap is checked.)
_ENCODING = "identity"
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/rss+xml",
        "application/atom+xml",
        "application/ld+json",
    }
)


@dataclass(frozen=True)
class RawPage:
    """The bytes of a page as read, before text extraction."""

    url: str
    content_type: str
    charset: str | None
    body: bytes
    truncated: bool


def new_client(settings: WebSearchSettings, transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """The one HTTP client of the toolbox: no redirects followed for us, no proxies, nothing pooled."""
    return httpx.Client(
        follow_redirects=False,
        # A proxy would resolve the name itself, behind the guard's back; fetches connect directly.
        trust_env=False,
        # Requests go to addresses, so a jar would file a site's cookies under its IP and hand them
        # to every other site served from that IP; pages are read anonymously instead.
        cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),
        limits=httpx.Limits(max_keepalive_connections=0),
        headers={"User-Agent": settings.user_agent, "Accept": _ACCEPT, "Accept-Encoding": _ENCODING},
        timeout=httpx.Timeout(settings.fetch_timeout, connect=min(settings.fetch_timeout, 10.0)),
        transport=transport,
    )


class LazyClient:
    """The client, built on first use: building one loads the CA bundle (~0.1 s), which a persona
    that never searches should not pay when it loads."""

    def __init__(self, settings: WebSearchSettings, transport: httpx.BaseTransport | None = None) -> None:
        self._settings = settings
        self._transport = transport
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def get(self) -> httpx.Client:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = new_client(self._settings, self._transport)
        return self._client


def content_kind(content_type: str) -> str | None:
    """'html', 'text', or None for a type fetch_page cannot read (images, PDF, archives...)."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media in ("text/html", "application/xhtml+xml"):
        return "html"
    if media.startswith("text/") or media in _TEXT_TYPES or media.endswith("+json"):
        return "text"
    if not media:
        return "unknown"
    return None


class PageFetcher:
    """Fetches pages for one toolbox; safe to share between threads (it holds no per-call state)."""

    def __init__(self, settings: WebSearchSettings, client: LazyClient) -> None:
        self._settings = settings
        self._client = client

    def fetch(self, url: str) -> RawPage:
        settings = self._settings
        deadline = time.monotonic() + settings.fetch_timeout
        current = guard.check_url(url, settings)
        for _hop in range(settings.max_redirects + 1):
            address = guard.pinned_address(current, settings)
            location = self._hop(current, address, deadline)
            if isinstance(location, RawPage):
                return location
            # httpx has already refused a Location that is no URL (RemoteProtocolError in _hop).
            current = guard.check_url(current.join(location), settings)
        raise WebToolError(
            f"{url} redirected more than {settings.max_redirects} times; give the final URL or another page"
        )

    # -- one hop -------------------------------------------------------------------------------
    def _hop(self, url: httpx.URL, address: guard.IPAddress, deadline: float) -> RawPage | str:
        """The page at ``url`` read from ``address``, or the Location it redirects to."""
        client = self._client.get()
        request = client.build_request(
            "GET",
            url.copy_with(host=str(address)),
            headers={"Host": url.netloc.decode("ascii")},
            timeout=_remaining_timeout(deadline, self._settings.fetch_timeout),
            extensions={"sni_hostname": guard.ascii_host(url)},
        )
        try:
            response = client.send(request, stream=True)
        except httpx.TimeoutException:
            raise self._timed_out(url) from None
        except httpx.RemoteProtocolError as exc:  # includes a redirect to a Location that is no URL
            raise WebToolError(f"{url.host} sent an invalid HTTP answer ({exc}); try another page") from None
        except httpx.HTTPError as exc:
            raise WebToolError(
                f"could not connect to {url.host} ({type(exc).__name__}: {exc}): no network, the server is "
                "down, or its certificate is not valid for that name; try another source"
            ) from None
        try:
            return self._read(url, response, deadline)
        finally:
            response.close()

    def _read(self, url: httpx.URL, response: httpx.Response, deadline: float) -> RawPage | str:
        status = response.status_code
        if status in _REDIRECTS:
            location: str | None = response.headers.get("location")
            if not location:
                raise WebToolError(
                    f"{url} answered a redirect ({status}) without a Location; try another page"
                )
            return location
        if status == 429:
            raise WebToolError(f"{url.host} is rate-limiting requests (HTTP 429); try another source")
        if not 200 <= status < 300:
            raise WebToolError(
                f"{url} answered HTTP {status} {response.reason_phrase}; check the URL or try another page"
            )
        content_type = response.headers.get("content-type", "")
        if content_kind(content_type) is None:
            raise BlockedURL(
                f"{url} is {content_type.split(';')[0]}, which fetch_page cannot read (it reads HTML and "
                "text pages); look for an HTML page with the same information"
            )
        body, truncated = self._body(url, response, deadline)
        return RawPage(str(url), content_type, response.charset_encoding, body, truncated)

    def _body(self, url: httpx.URL, response: httpx.Response, deadline: float) -> tuple[bytes, bool]:
        limit = self._settings.max_page_bytes
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_bytes():
                if size + len(chunk) > limit:
                    chunks.append(chunk[: limit - size])
                    return b"".join(chunks), True
                chunks.append(chunk)
                size += len(chunk)
                if time.monotonic() > deadline:
                    raise self._timed_out(url)
        except httpx.TimeoutException:
            raise self._timed_out(url) from None
        except httpx.HTTPError as exc:
            raise WebToolError(
                f"reading {url} failed ({type(exc).__name__}: {exc}); try again or another page"
            ) from None
        return b"".join(chunks), False

    def _timed_out(self, url: httpx.URL) -> WebToolError:
        return WebToolError(
            f"{url.host} did not deliver the page within {self._settings.fetch_timeout:g} seconds; "
            "try another source"
        )


def _remaining_timeout(deadline: float, total: float) -> httpx.Timeout:
    remaining = max(0.05, deadline - time.monotonic())
    return httpx.Timeout(remaining, connect=min(remaining, 10.0, total))
