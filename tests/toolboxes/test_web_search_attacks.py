"""Attacks on fetch_page: schemes, internal addresses, redirects, DNS tricks, huge and slow pages.

Each test shows the refusal AND that nothing was sent where the attack pointed: the local
server records every request, and a mock transport records what would have gone out.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from web_search_servers import ARTICLE, LocalWebServer, huge, needs_trafilatura, page, redirect, send, slow

from ovos_agentic_loop_toolboxes.web_search import guard
from ovos_agentic_loop_toolboxes.web_search.settings import parse_settings

PUBLIC = "93.184.216.34"


@pytest.fixture
def server() -> Iterator[LocalWebServer]:
    with LocalWebServer({"/article": page(ARTICLE)}) as local:
        yield local


def toolbox(**config: Any) -> ToolBox:
    return find_toolbox_plugins()["ovos-web-search-tools"](config=config)


def error_of(tb: ToolBox, url: str) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("fetch_page", {"url": url})
    assert excinfo.value.__cause__ is not None
    return str(excinfo.value.__cause__)


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """A fake resolver: name -> addresses; records each lookup in ``dns['lookups']``."""
    table: dict[str, list[str]] = {"lookups": []}
    real = guard.resolve_host

    def resolve(host: str, port: int) -> list[guard.IPAddress]:
        table["lookups"].append(host)
        if host in table:
            return [ipaddress.ip_address(a) for a in table[host]]
        return real(host, port)

    monkeypatch.setattr(guard, "resolve_host", resolve)
    return table


class Recorder:
    """A mock transport: records each request; answers from a table of URL -> response."""

    def __init__(self, answers: dict[str, httpx.Response]) -> None:
        self.answers = answers
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.get(str(request.url), httpx.Response(404))


def with_transport(tb: ToolBox, recorder: Recorder) -> ToolBox:
    tb.use_transport(httpx.MockTransport(recorder))  # type: ignore[attr-defined]
    return tb


# -- schemes and literal addresses ----------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.org/x",
        "gopher://127.0.0.1:25/_HELO",
        "data:text/html,<p>hi</p>",
        "javascript:alert(1)",
        "//example.org/no-scheme",
        "example.org/no-scheme",
    ],
)
@needs_trafilatura
def test_only_http_and_https(url: str) -> None:
    message = error_of(toolbox(), url)
    assert "only http and https" in message or "no host" in message or "not a valid URL" in message


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("http://127.0.0.1:8091/v1/models", "loopback"),
        ("http://localhost/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://10.0.0.5/", "private"),
        ("http://192.168.1.1/admin", "private"),
        ("http://172.16.3.4/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "metadata"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "metadata"),
        ("http://169.254.1.1/", "link-local"),
        ("http://100.64.0.1/", "CGNAT"),
        ("http://0.0.0.0:8091/", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://[::ffff:a9fe:a9fe]/", "metadata"),
        ("http://[64:ff9b::a00:1]/", "private"),
        ("http://2130706433/", "loopback"),  # 127.0.0.1 as one decimal number
        ("http://0x7f.1/", "loopback"),
        ("http://127.1/", "loopback"),
    ],
)
@needs_trafilatura
def test_internal_addresses_are_refused_before_any_request(url: str, kind: str) -> None:
    recorder = Recorder({})
    message = error_of(with_transport(toolbox(), recorder), url)
    assert kind in message and "use a public URL" in message
    assert recorder.requests == []


@needs_trafilatura
def test_a_real_local_server_is_refused_by_default_and_never_reached(server: LocalWebServer) -> None:
    assert "loopback" in error_of(toolbox(), f"{server.base}/article")
    assert server.seen == []


@needs_trafilatura
def test_metadata_stays_refused_with_allow_private() -> None:
    tb = toolbox(allow_private=True)
    assert "metadata" in error_of(tb, "http://169.254.169.254/latest/meta-data/")
    assert "metadata" in error_of(tb, "http://[fd00:ec2::254]/")


@needs_trafilatura
def test_url_credentials_are_refused() -> None:
    assert "user name or password" in error_of(toolbox(), "http://user:pw@example.org/")


# -- DNS: names that resolve inside, rebinding, pinning ----------------------------------------------


@needs_trafilatura
def test_a_name_resolving_to_a_private_address_is_refused(dns: dict[str, list[str]]) -> None:
    dns["intranet.example.org"] = ["10.1.2.3"]
    recorder = Recorder({})
    message = error_of(with_transport(toolbox(), recorder), "https://intranet.example.org/")
    assert "intranet.example.org resolves to 10.1.2.3, a private address" in message
    assert recorder.requests == []


@needs_trafilatura
def test_one_private_answer_among_public_ones_refuses_the_name(dns: dict[str, list[str]]) -> None:
    dns["mixed.example.org"] = [PUBLIC, "127.0.0.1"]
    assert "127.0.0.1, a loopback address" in error_of(toolbox(), "https://mixed.example.org/")


@needs_trafilatura
def test_the_connection_goes_to_the_checked_address_with_the_real_name(dns: dict[str, list[str]]) -> None:
    """DNS rebinding: the name is resolved once per hop and never again; TLS is verified for the name."""
    dns["news.example.org"] = [PUBLIC]
    recorder = Recorder({f"https://{PUBLIC}/story": httpx.Response(200, html=ARTICLE.decode())})
    out = with_transport(toolbox(), recorder).call_tool(
        "fetch_page", {"url": "https://news.example.org/story"}
    )

    assert "Tram 28" in out.text and out.url == "https://news.example.org/story"
    (request,) = recorder.requests
    assert request.url.host == PUBLIC
    assert request.headers["host"] == "news.example.org"
    assert request.extensions["sni_hostname"] == "news.example.org"
    assert dns["lookups"] == ["news.example.org"]


@needs_trafilatura
def test_a_name_is_pinned_on_a_live_server_too(server: LocalWebServer, dns: dict[str, list[str]]) -> None:
    dns["home.example.org"] = ["127.0.0.1"]
    tb = toolbox(allow_private=True)
    out = tb.call_tool("fetch_page", {"url": f"http://home.example.org:{server.port}/article"})
    assert out.title == "Lisbon trams"
    assert server.seen[0].host == f"home.example.org:{server.port}"


# -- redirects --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1:8091/v1/models",
        "http://169.254.169.254/latest/meta-data/iam/",
        "http://internal.example.org/",
        "file:///etc/passwd",
    ],
)
@needs_trafilatura
def test_a_redirect_into_the_inside_is_refused(dns: dict[str, list[str]], target: str) -> None:
    dns["evil.example.org"] = [PUBLIC]
    dns["internal.example.org"] = ["192.168.0.10"]
    recorder = Recorder({f"http://{PUBLIC}/go": httpx.Response(302, headers={"Location": target})})
    message = error_of(with_transport(toolbox(), recorder), "http://evil.example.org/go")
    assert "use a public URL" in message or "only http and https" in message
    assert [str(r.url) for r in recorder.requests] == [f"http://{PUBLIC}/go"]  # the hop was never made


@needs_trafilatura
def test_a_redirect_to_an_invalid_url_is_refused(dns: dict[str, list[str]]) -> None:
    dns["odd.example.org"] = [PUBLIC]
    recorder = Recorder({f"http://{PUBLIC}/go": httpx.Response(302, headers={"Location": "http://[::1"})})
    assert "sent an invalid HTTP answer (Invalid URL in location header" in error_of(
        with_transport(toolbox(), recorder), "http://odd.example.org/go"
    )


@needs_trafilatura
def test_a_redirect_to_a_local_server_never_reaches_it(
    server: LocalWebServer, dns: dict[str, list[str]]
) -> None:
    dns["evil.example.org"] = [PUBLIC]
    recorder = Recorder(
        {f"http://{PUBLIC}/go": httpx.Response(302, headers={"Location": f"{server.base}/article"})}
    )
    assert "loopback" in error_of(with_transport(toolbox(), recorder), "http://evil.example.org/go")
    assert server.seen == []


@needs_trafilatura
def test_redirect_loops_stop_at_max_redirects(server: LocalWebServer) -> None:
    server.routes["/loop"] = redirect("/loop")
    tb = toolbox(allow_private=True, max_redirects=3)
    assert "redirected more than 3 times" in error_of(tb, f"{server.base}/loop")
    assert server.paths() == ["/loop"] * 4


@needs_trafilatura
def test_blocked_and_allowed_domains_apply_to_every_hop(dns: dict[str, list[str]]) -> None:
    dns["docs.example.org"] = [PUBLIC]
    recorder = Recorder(
        {f"https://{PUBLIC}/a": httpx.Response(302, headers={"Location": "https://tracker.example.com/"})}
    )
    tb = with_transport(toolbox(allowed_domains=["example.org"]), recorder)
    assert "only these domains may be read: example.org" in error_of(tb, "https://docs.example.org/a")
    blocked = with_transport(toolbox(blocked_domains=["*.Example.ORG."]), Recorder({}))
    assert "is blocked" in error_of(blocked, "https://docs.example.org/a")
    assert "is blocked" in error_of(blocked, "https://example.org/")
    assert "not one of them" in error_of(toolbox(allowed_domains=["example.org"]), "https://badexample.org/")


@needs_trafilatura
def test_no_cookies_are_kept_between_pages(server: LocalWebServer) -> None:
    """Pinned requests go to addresses: a kept cookie would follow the IP to other sites on it."""
    server.routes["/login"] = lambda h: send(
        h, 200, ARTICLE, "text/html", Set_Cookie="session=secret; Path=/"
    )
    tb = toolbox(allow_private=True)
    tb.call_tool("fetch_page", {"url": f"{server.base}/login"})
    tb.call_tool("fetch_page", {"url": f"{server.base}/article"})
    assert [s.cookie for s in server.seen] == [None, None]


@needs_trafilatura
def test_a_not_modified_or_other_3xx_answer_is_not_read_as_a_page(server: LocalWebServer) -> None:
    server.routes["/cached"] = lambda h: send(h, 304, b"", "text/html")
    assert "HTTP 304" in error_of(toolbox(allow_private=True), f"{server.base}/cached")


# -- size, time, content types ---------------------------------------------------------------------


@needs_trafilatura
def test_a_huge_page_is_cut_and_the_download_stopped(server: LocalWebServer) -> None:
    server.routes["/huge"] = huge(server, 50_000_000)
    tb = toolbox(allow_private=True, max_page_bytes=200_000)

    started = time.monotonic()
    out = tb.call_tool("fetch_page", {"url": f"{server.base}/huge"})

    assert time.monotonic() - started < 10
    assert out.truncated is True and "larger than 200000 bytes" in out.note
    assert "lorem ipsum" in out.text
    time.sleep(0.2)
    assert server.bytes_sent["huge"] < 20_000_000  # the server could not push the whole page


@needs_trafilatura
def test_a_slow_drip_page_is_cut_off_at_fetch_timeout(server: LocalWebServer) -> None:
    server.routes["/slow"] = slow(interval=0.2, count=100)  # 20 s in all; no single read ever waits 1 s
    tb = toolbox(allow_private=True, fetch_timeout=1.0)

    started = time.monotonic()
    message = error_of(tb, f"{server.base}/slow")

    assert time.monotonic() - started < 6  # the page takes 20 s; room for a loaded CI machine
    assert "within 1 seconds" in message


@needs_trafilatura
@pytest.mark.parametrize("content_type", ["image/png", "application/pdf", "application/octet-stream"])
def test_unreadable_content_types_are_a_clear_error(server: LocalWebServer, content_type: str) -> None:
    server.routes["/file"] = page(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, content_type)
    message = error_of(toolbox(allow_private=True), f"{server.base}/file")
    assert f"is {content_type}, which fetch_page cannot read" in message


@needs_trafilatura
def test_binary_bytes_labelled_as_text_are_refused(server: LocalWebServer) -> None:
    server.routes["/fake-text"] = page(b"\x00\x01\x02binary", "text/plain")
    assert "binary data" in error_of(toolbox(allow_private=True), f"{server.base}/fake-text")


@needs_trafilatura
def test_no_network_is_a_message(dns: dict[str, list[str]]) -> None:
    dns["down.example.org"] = [PUBLIC]

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("Network is unreachable", request=request)

    tb = toolbox()
    tb.use_transport(httpx.MockTransport(refuse))  # type: ignore[attr-defined]
    assert "could not connect to down.example.org" in error_of(tb, "https://down.example.org/")


@needs_trafilatura
def test_an_unknown_name_is_a_message() -> None:
    assert "could not resolve" in error_of(toolbox(), "https://no-such-host.invalid/")


# -- the guard alone ---------------------------------------------------------------------------------


def test_public_addresses_pass_and_allow_private_opens_only_private_ranges() -> None:
    check = guard.address_problem
    assert check(ipaddress.ip_address(PUBLIC), allow_private=False) is None
    assert check(ipaddress.ip_address("2606:4700::1111"), allow_private=False) is None
    assert check(ipaddress.ip_address("192.168.1.10"), allow_private=True) is None
    assert check(ipaddress.ip_address("100.100.100.200"), allow_private=True) == "a cloud metadata address"
    assert check(ipaddress.ip_address("ff02::1"), allow_private=True) == "a multicast address"


def test_settings_are_frozen() -> None:
    settings = parse_settings({})
    with pytest.raises(ValueError):
        settings.allow_private = True  # type: ignore[misc]
