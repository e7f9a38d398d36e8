"""The language a toolbox reads spoken words in, and the order of languages it falls back to.

A tool gets only its arguments, never the turn's ``lang``, so a toolbox learns its language once,
at construction: its own section's ``lang`` key first, then the OVOS configuration's ``lang``
(``mycroft.conf``, read through ovos-config, which every OVOS install has), then English. Small
models often copy the user's words into an argument in whatever language they were said, or
translate them into English, so a word that does not read in the configured language is tried in
:data:`FALLBACK_LANGS` next (the configured one first, each language once).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ovos_utils.log import LOG

__all__ = [
    "DEFAULT_LANG",
    "FALLBACK_LANGS",
    "READING_LANGS",
    "configured_lang",
    "reading_in",
    "reading_order",
]

DEFAULT_LANG = "en-US"
#: Languages tried after the configured one, in this order: the languages the project's suites
#: and the bundled model cover best.
FALLBACK_LANGS = ("en-US", "pt-PT", "es-ES", "de-DE", "fr-FR", "it-IT", "nl-NL")


def configured_lang(section_lang: str | None) -> str:
    """The section's ``lang``, else the OVOS configuration's, else :data:`DEFAULT_LANG`."""
    if section_lang and section_lang.strip():
        return section_lang.strip()
    try:
        from ovos_config import Configuration

        found = Configuration().get("lang")
    except (OSError, ValueError) as exc:  # A broken mycroft.conf must not stop a tool: say so, use English.
        LOG.warning(f"could not read 'lang' from the OVOS configuration ({exc}); using {DEFAULT_LANG}")
        return DEFAULT_LANG
    return found.strip() if isinstance(found, str) and found.strip() else DEFAULT_LANG


def reading_order(lang: str) -> tuple[str, ...]:
    """``lang`` first, then each fallback language whose base differs from the ones before it."""
    order: list[str] = []
    for candidate in (lang, *FALLBACK_LANGS):
        base = candidate.split("-")[0].lower()
        if all(base != seen.split("-")[0].lower() for seen in order):
            order.append(candidate)
    return tuple(order)


#: The languages an argument validator reads words in. A pydantic validator sees only the value,
#: so ``BundledToolBox.call_tool`` sets the toolbox's languages around each call; outside a call,
#: every fallback language.
READING_LANGS: ContextVar[tuple[str, ...]] = ContextVar("reading_langs", default=reading_order(DEFAULT_LANG))  # noqa: B039 (a tuple)


@contextmanager
def reading_in(langs: tuple[str, ...]) -> Iterator[None]:
    """Validators read words in ``langs`` inside this block."""
    token = READING_LANGS.set(langs)
    try:
        yield
    finally:
        READING_LANGS.reset(token)
