"""Dates and times said in words, read and spoken through ovos-date-parser (for ovos-clock-tools).

Small models pass the user's words on: "next friday", "march first", "in three hours", "six pm
london time", "amanhã às três da tarde". ovos-date-parser reads them in the toolbox's language
(then the fallback languages, see ``_core.language``); its numbers are read by ovos-number-parser
first where the date parser misses spelled ordinals ("april fifteenth" would be April 1 with
"fifteenth" left over). A reading that leaves words over is not trusted: the caller refuses the
text with the form to send instead. The same package says the results in words a TTS reads well.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from ovos_utils.log import LOG

__all__ = ["SpokenMoment", "read_moment", "say_date", "say_time"]

# Words the date parser leaves over without meaning anything ("on", "at"): a reading whose
# leftover is only punctuation counts as complete.
_PUNCTUATION = re.compile(r"[\s,.;:!?'\"]+")


@dataclass(frozen=True)
class SpokenMoment:
    moment: datetime
    leftover: str  # words the parser did not use, such as a zone name ("london time")
    lang: str


def read_moment(
    text: str, langs: Iterable[str], now: datetime, *, allow_leftover: bool = False
) -> SpokenMoment | None:
    """``text`` read as a date and time relative to ``now`` (aware), in the first language of
    ``langs`` that reads it whole; with ``allow_leftover``, the words left over are returned
    (a zone name after a time)."""
    candidates: list[SpokenMoment] = []
    for lang in langs:
        digits = _digits(text, lang)
        # "6 30 pm" (six thirty pm): an hour and its minutes.
        clock = re.sub(r"\b(\d{1,2}) ([0-5]\d)\b", r"\1:\2", digits)
        for variant in dict.fromkeys((text, digits, clock)):
            found = _extract(variant, lang, now)
            if found is None:
                continue
            moment, leftover = found
            leftover = _PUNCTUATION.sub(" ", leftover).strip()
            moment = _coming_weekday(text, lang, now, _bare_time_today(variant, lang, now, moment))
            reading = SpokenMoment(moment, leftover, lang)
            if not leftover:
                return reading
            candidates.append(reading)
    if allow_leftover and candidates:
        return min(candidates, key=lambda c: len(c.leftover))
    return None


def _extract(text: str, lang: str, now: datetime) -> tuple[datetime, str] | None:
    from ovos_date_parser import extract_datetime

    try:
        found = extract_datetime(text, lang, anchorDate=now)
    except (NotImplementedError, ValueError, IndexError, KeyError, TypeError) as exc:
        LOG.debug(f"ovos-date-parser could not read {text!r} in {lang}: {exc}")
        return None
    if not found or not isinstance(found[0], datetime):
        return None
    moment = found[0] if found[0].tzinfo is not None else found[0].replace(tzinfo=now.tzinfo)
    return moment, str(found[1] or "")


def _bare_time_today(text: str, lang: str, now: datetime, moment: datetime) -> datetime:
    """A clock time alone ("nine in the morning") means today, as 'HH:MM' does here; the date
    parser moves a time already past to tomorrow. Read again from midnight: a bare clock time
    gives the same wall time today; a relative one ("in three hours") does not."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    again = _extract(text, lang, midnight)
    if again is None or moment - again[0] != timedelta(days=1) or again[0].date() != now.date():
        return moment
    return again[0]


def _coming_weekday(text: str, lang: str, now: datetime, moment: datetime) -> datetime:
    """A weekday said with "next" ("next friday", "nächsten Freitag") is the first such day after today.

    ovos-date-parser 0.29 reads "next friday" as the coming Friday on a Monday or Tuesday and as
    the one a week later from Wednesday on (and "next monday" on a Saturday as nine days ahead),
    so what the user heard depended on the day they asked. One reading for every day: a reading
    that falls on a weekday the text names, 8 to 13 days ahead, is brought back one week (a count
    of weeks said with it, "friday in two weeks", lands further and is kept). The result's
    ``spoken`` names the date ("friday, december fourth"), so the user hears which day was meant."""
    ahead = (moment.date() - now.date()).days
    if not 7 < ahead < 14:
        return moment
    words = set(re.findall(r"[^\W\d_]+", text.casefold()))
    named = _weekday_names(lang)
    said = next((i for i, name in enumerate(named) if words & name), None)
    return moment - timedelta(days=7) if said == moment.weekday() else moment


@functools.lru_cache(maxsize=16)
def _weekday_names(lang: str) -> tuple[frozenset[str], ...]:
    """Monday first, the words of each day's name in ``lang`` (CLDR, through babel):
    'sexta-feira' gives 'sexta': a word in more than one day's name ('feira') names none."""
    from babel import Locale, UnknownLocaleError
    from babel.dates import get_day_names

    try:
        names = get_day_names("wide", locale=Locale.parse(lang.replace("-", "_")))
    except (UnknownLocaleError, ValueError):
        return ()
    days = [set(re.findall(r"[^\W\d_]+", names[day].casefold())) for day in range(7)]
    counts = Counter(word for day in days for word in day)
    return tuple(frozenset(word for word in day if counts[word] == 1) for day in days)


def _digits(text: str, lang: str) -> str:
    """Ordinals and numbers said in words written as digits ("april fifteenth" -> "april 15").

    Ordinals go first, word by word: given "december twenty fifth", numbers_to_digits says
    "december 20" and loses the fifth. "twenty 5" is then one ordinal, 25."""
    from ovos_number_parser import is_ordinal, numbers_to_digits

    words: list[str] = []
    for word in text.split():
        try:
            ordinal = is_ordinal(word, lang)
        except (NotImplementedError, ValueError, IndexError, KeyError):
            ordinal = False
        words.append(str(int(ordinal)) if ordinal and not isinstance(ordinal, bool) else word)
    try:
        digits = numbers_to_digits(" ".join(words), lang).split()
    except (NotImplementedError, ValueError, IndexError, KeyError) as exc:
        LOG.debug(f"ovos-number-parser could not read {text!r} in {lang}: {exc}")
        return text
    out: list[str] = []
    for word in digits:
        tens = int(out[-1]) if out and out[-1].isdigit() else 0
        if word.isdigit() and len(word) == 1 and word != "0" and tens % 10 == 0 and 20 <= tens < 100:
            out[-1] = str(tens + int(word))
            continue
        out.append(word)
    return " ".join(out)


def say_time(moment: datetime, lang: str) -> str:
    """The time as a TTS says it ("quarter past six p.m."), in ``lang`` or else English."""
    from ovos_date_parser import nice_time

    for candidate in (lang, "en-US"):
        try:
            return str(nice_time(moment, candidate, speech=True, use_ampm=True))
        except (NotImplementedError, KeyError, ValueError, IndexError) as exc:
            LOG.debug(f"ovos-date-parser cannot say a time in {candidate}: {exc}")
    return moment.strftime("%H:%M")


def say_date(day: date, lang: str) -> str:
    """The date as a TTS says it ("tuesday, december first, twenty twenty six")."""
    from ovos_date_parser import nice_date

    moment = datetime(day.year, day.month, day.day)
    for candidate in (lang, "en-US"):
        try:
            return str(nice_date(moment, candidate))
        except (NotImplementedError, KeyError, ValueError, IndexError, TypeError) as exc:
            LOG.debug(f"ovos-date-parser cannot say a date in {candidate}: {exc}")
    return day.isoformat()
