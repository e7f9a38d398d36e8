"""A page's readable text: the main content of HTML through trafilatura, plain text as is.

trafilatura finds the article in a page and drops menus, footers and cookie banners, which
would otherwise fill a small model's context. When it finds no main content (a short page, a
home server's status page) the page's whole visible text is used instead: still the page's
own words, never an invented summary.
"""

from __future__ import annotations

import codecs
import importlib.util
import re
from typing import Any

from ovos_agentic_loop_toolboxes.web_search.errors import WebToolError
from ovos_agentic_loop_toolboxes.web_search.fetch import RawPage, content_kind
from ovos_agentic_loop_toolboxes.web_search.untrusted import clean_text

__all__ = ["INSTALL_HINT", "missing_packages", "readable_text"]

INSTALL_HINT = "pip install 'ovos-agentic-loop[web]'"
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)


def missing_packages(*packages: str) -> list[str]:
    """The ``packages`` that cannot be imported here, found WITHOUT importing them (that costs start-up
    time in every host that builds the toolbox)."""
    gone = []
    for name in packages:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken install, or a module without a spec
            found = False
        if not found:
            gone.append(name)
    return gone


def readable_text(page: RawPage) -> tuple[str, str]:
    """``(title, text)`` of a fetched page; :class:`WebToolError` when it holds no readable text."""
    kind = content_kind(page.content_type)
    if kind == "unknown":  # no Content-Type: look at the bytes
        kind = "html" if page.body.lstrip()[:1] == b"<" else "text"
    if kind == "html":
        title, text = _from_html(page)
    else:
        title, text = "", _decode(page.body, page.charset)
        if "\x00" in text:
            raise WebToolError(f"{page.url} is binary data, not text; look for an HTML page instead")
    text = clean_text(text)
    if not text:
        raise WebToolError(f"{page.url} has no readable text (it may need JavaScript); try another source")
    return clean_text(title), text


def _from_html(page: RawPage) -> tuple[str, str]:
    trafilatura = _trafilatura()
    # With a charset from the headers, decode here; without one, trafilatura reads <meta charset>.
    html: str | bytes = _decode(page.body, page.charset) if page.charset else page.body
    document: Any = trafilatura.bare_extraction(
        html, url=page.url, with_metadata=True, include_comments=False, include_tables=True
    )
    title = str(getattr(document, "title", None) or "")
    text = str(getattr(document, "text", None) or "")
    if not text.strip():
        text = trafilatura.html2txt(html) or ""
    if not title:
        match = _TITLE.search(page.body[:65536])
        title = _decode(match.group(1), page.charset) if match else ""
    return title, text


def _decode(data: bytes, charset: str | None) -> str:
    encoding = "utf-8"
    if charset:
        try:
            encoding = codecs.lookup(charset).name
        except LookupError:
            encoding = "utf-8"
    return data.decode(encoding, errors="replace")


def _trafilatura() -> Any:
    try:
        import trafilatura
    except ImportError as exc:
        raise WebToolError(
            f"fetch_page cannot extract page text here: trafilatura is not installed ({exc}). "
            f"The assistant's operator can install it with {INSTALL_HINT}; answer without the page."
        ) from None
    return trafilatura
