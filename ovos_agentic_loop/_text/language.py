"""The language a turn's answer must be in, said to the model in one line.

A small model shown tool results in English (every tool answers in English) answers a Spanish
or German question in English, or with a bare number: measured on the spoken suite, where
every question in another language failed that way. The session's ``lang`` is the
one reliable source of the language the user speaks, so when it names a language other than
English the system prompt ends with one line asking for the answer in it. English sessions, and
sessions without ``lang``, get no line: their prompts stay byte-identical (and cached).

Language names come from ``langcodes`` (the library the OVOS ecosystem's own plugins use for
BCP-47 tags), not a hand-written table: any tag a host sends ("pt-PT", "de", "es-419") reads.
"""

from __future__ import annotations

from functools import lru_cache

from ovos_agentic_loop._runtime.log import ovos_logger

__all__ = ["answer_language_line", "language_code", "language_name"]


def language_code(lang: str | None) -> str:
    """The bare language of a tag, lower case ("pt-PT", "pt_BR" -> "pt"); "en" without one: what
    the per-language tables (ovos-number-parser's, the confirmation question's) are keyed by."""
    return (lang or "en").split("-")[0].split("_")[0].lower()


@lru_cache(maxsize=64)
def language_name(lang: str | None) -> str | None:
    """The English name of ``lang``'s language ("pt-PT" -> "Portuguese"); None for English, for no
    ``lang`` or for a tag that names no known language."""
    if not lang or not lang.strip():
        return None
    try:
        import langcodes  # only sessions with a lang pay the import

        language = langcodes.Language.get(lang.strip().replace("_", "-"))
        if not language.language or language.language in ("en", "und") or not language.is_valid():
            return None
        name = str(language.language_name("en"))
    except (ValueError, LookupError):
        return None
    except ImportError as exc:  # langcodes without its language_data: the turn goes on without the line
        ovos_logger(__name__).warning(
            f"no language name for lang {lang!r} ({exc}); install 'langcodes[data]' so answers are asked for "
            "in the user's language"
        )
        return None
    # a tag langcodes knows no name for ("xx") reads as "Unknown language [xx]": nothing to ask for
    return None if name.startswith("Unknown language") else name


def answer_language_line(lang: str | None) -> str | None:
    """The system prompt's line asking for the answer in ``lang``'s language, or None."""
    name = language_name(lang)
    if name is None:
        return None
    return f"The user speaks {name}: always answer in {name}, even when the tool results are in English."
