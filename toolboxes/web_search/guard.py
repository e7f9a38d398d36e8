"""Which URLs fetch_page may read: the SSRF guard.

A model that reads web pages can be talked into reading ``http://127.0.0.1:8091/`` or the cloud
metadata service by any page it reads, so every hop of a fetch passes through here:

1. :func:`check_url`: only http(s), no credentials in the URL, the domain policy
   (``allowed_domains`` / ``blocked_domains``);
2. :func:`resolve_host` then :func:`address_problem` on EVERY address the name resolves to: one
   non-public answer refuses the URL (a name that mixes public and private answers is an attack);
3. the fetcher then connects to the very address checked here (see ``fetch.py``): the name is
   never resolved a second time, so DNS rebinding between check and connect cannot happen.

Numeric tricks (``http://2130706433/``, ``http://0x7f.1/``, ``[::ffff:127.0.0.1]``) need no
special cases: the resolver turns them into the address they mean, and that address is checked.
"""

from __future__ import annotations

import ipaddress
import socket

import httpx

from ovos_agentic_loop_toolboxes.web_search.errors import BlockedURL, WebToolError
from ovos_agentic_loop_toolboxes.web_search.settings import WebSearchSettings, normalise_domain

__all__ = [
    "IPAddress",
    "address_problem",
    "ascii_host",
    "check_url",
    "domain_listed",
    "pinned_address",
    "resolve_host",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud metadata services: refused even with allow_private (no home server lives there, and
# they hand out credentials). AWS/GCP/Azure/OpenStack, AWS IPv6, AWS ECS, Alibaba.
_METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200")
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def check_url(url: str | httpx.URL, settings: WebSearchSettings) -> httpx.URL:
    """The parsed URL if its form and domain are allowed; :class:`BlockedURL` saying why otherwise."""
    try:
        parsed = url if isinstance(url, httpx.URL) else httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError) as exc:
        raise BlockedURL(f"{str(url)[:200]!r} is not a valid URL ({exc}); give a full http(s) URL") from None
    if parsed.scheme not in ("http", "https"):
        shown = parsed.scheme or "no scheme"
        raise BlockedURL(f"only http and https URLs can be read, not {shown}; give a full https:// URL")
    if not parsed.host:
        raise BlockedURL("the URL has no host name; give a full URL such as https://example.org/page")
    if parsed.userinfo:
        raise BlockedURL("URLs with a user name or password are not read; give the URL without them")
    host = normalise_domain(parsed.host)
    if domain_listed(host, settings.blocked_domains):
        raise BlockedURL(
            f"the domain {host} is blocked by this assistant's configuration; use another source"
        )
    if settings.allowed_domains and not domain_listed(host, settings.allowed_domains):
        allowed = ", ".join(settings.allowed_domains)
        raise BlockedURL(f"only these domains may be read: {allowed} ({host} is not one of them)")
    return parsed


def domain_listed(host: str, domains: list[str]) -> bool:
    """True when ``host`` is one of ``domains`` or a subdomain of one."""
    return any(host == d or host.endswith("." + d) for d in domains)


def resolve_host(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (an address literal resolves to itself)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebToolError(
            f"could not resolve {host} ({exc}): the name does not exist or there is no network; "
            "check the URL or answer without this page"
        ) from None
    found: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])  # drop an IPv6 zone id
        if address not in found:
            found.append(address)
    if not found:
        raise WebToolError(f"{host} has no address; check the URL")
    return found


def address_problem(address: IPAddress, *, allow_private: bool) -> str | None:
    """Why ``address`` may not be read ("a loopback address"), or None when it may."""
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        return address_problem(embedded, allow_private=allow_private)
    if address in _METADATA:
        return "a cloud metadata address"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_multicast:
        return "a multicast address"
    if allow_private:
        return None
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return "a shared (CGNAT) address"
    if address.is_private:
        return "a private address"
    if address.is_reserved or not address.is_global:
        return "a reserved, non-public address"
    return None


def pinned_address(url: httpx.URL, settings: WebSearchSettings) -> IPAddress:
    """The address to connect to for ``url``: all of its addresses checked, the first one chosen."""
    port = url.port or (443 if url.scheme == "https" else 80)
    host = ascii_host(url)
    addresses = resolve_host(host, port)
    for address in addresses:
        problem = address_problem(address, allow_private=settings.allow_private)
        if problem is not None:
            hint = "" if settings.allow_private else " (internal addresses are not read)"
            raise BlockedURL(f"{host} resolves to {address}, {problem}{hint}; use a public URL")
    return addresses[0]


def ascii_host(url: httpx.URL) -> str:
    """The host as sent on the wire: IDNA (punycode) for a name, bare for an IPv6 literal."""
    return url.raw_host.decode("ascii")


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo, NAT64), which is what it reaches."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None
