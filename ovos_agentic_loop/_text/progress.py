"""The short line a voice says while a slow tool runs, made from the call itself, never by the model.

A voice that is silent for many seconds after a question sounds broken. When a turn has been
silent for ``progress_delay`` seconds and a tool is running or about to run, the loop says one
line about that call ("Checking the time in London.", "Reading shopping.txt."). It costs no model
call: the words come, first that fits, from

1. the persona's ``progress_lines`` (a tool name or fnmatch pattern -> a template whose ``{names}``
   are the call's arguments: ``{"get_weather": "Looking up the weather in {city}."}``);
2. the host's hook (``engine.progress_lines``: ``(tool, arguments, lang) -> str | None``);
3. the toolbox's own phrases for the tool, per language (a template or a list, most specific
   first), declared in the tool's annotations under
   :data:`~ovos_agentic_loop_settings.TOOL_PROGRESS_KEY` (the bundled toolboxes declare theirs);
4. a plain "One moment." in the session's language.

A template whose argument the call does not have, or whose value is too long to say, is skipped
for the next source. Argument values are said as a person would: a time zone by its place
("Europe/London" -> "London"), a path by its file name.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from typing import Any

from ovos_agentic_loop._runtime.log import ovos_logger
from ovos_agentic_loop._text.language import language_code
from ovos_agentic_loop_settings import TOOL_PROGRESS_KEY

__all__ = ["GENERIC_LINES", "ProgressHook", "progress_line", "template_fields"]

#: ``(tool name, arguments, lang) -> line or None``: a host's or persona's own words.
ProgressHook = Callable[[str, Mapping[str, Any], "str | None"], "str | None"]

#: The line when nothing more specific fits, per language (another language gets English).
GENERIC_LINES = {
    "en": "One moment.",
    "pt": "Um momento.",
    "es": "Un momento.",
    "de": "Einen Moment.",
    "fr": "Un instant.",
    "it": "Un momento.",
}

#: Longest argument value said in a line; a longer one makes its template unusable.
MAX_SAID_CHARS = 60


def progress_line(
    name: str,
    arguments: Mapping[str, Any],
    annotations: Mapping[str, Any] | None,
    lang: str | None,
    *,
    persona_lines: Mapping[str, str] | None = None,
    hook: ProgressHook | None = None,
) -> str:
    """The line to say while tool ``name`` runs with ``arguments`` (see the module docstring)."""
    for pattern, template in (persona_lines or {}).items():
        if (pattern == name or fnmatchcase(name, pattern)) and (line := _filled(template, arguments)):
            return line
    if hook is not None:
        try:
            line = hook(name, arguments, lang)
        except Exception as exc:  # noqa: BLE001 - a host's bug must not break the turn; reported
            ovos_logger(__name__).warning(f"progress_lines hook {hook!r} raised {type(exc).__name__}: {exc}")
            line = None
        if isinstance(line, str) and line.strip():
            return line.strip()
    declared = (annotations or {}).get(TOOL_PROGRESS_KEY)
    if isinstance(declared, Mapping):
        code = language_code(lang)
        # The session's language, else English: templates most specific first, one per string.
        for templates in (declared.get(code), declared.get("en") if code != "en" else None):
            for template in [templates] if isinstance(templates, str) else templates or []:
                if isinstance(template, str) and (line := _filled(template, arguments)):
                    return line
    return GENERIC_LINES.get(language_code(lang), GENERIC_LINES["en"])


def template_fields(template: str) -> list[str]:
    """The argument names ``{name}`` of a progress template; ValueError for one that is not a
    template (an unbalanced brace, ``{}`` or ``{0}``: a line names the call's arguments)."""
    fields = [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]
    if any(not f.isidentifier() for f in fields):
        raise ValueError(f"{template!r}: write each argument as {{name}}, e.g. 'Reading {{path}}.'")
    return fields


def _filled(template: str, arguments: Mapping[str, Any]) -> str | None:
    """``template`` with the call's arguments said in it; None when one is missing or too long."""
    said: dict[str, str] = {}
    try:
        fields = template_fields(template)
    except ValueError:  # a toolbox's phrase that is not a template: the next source speaks
        return None
    for field in fields:
        value = _said(field, arguments.get(field))
        if value is None:
            return None
        said[field] = value
    try:
        return template.format(**said).strip() or None
    except (KeyError, IndexError, ValueError):
        return None


def _said(name: str, value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    text = " ".join(str(value).split())
    if not text or text in (".", "./"):  # "the root folder" is nothing a voice can name
        return None
    if "/" in text and ("zone" in name or name == "tz"):
        text = text.rsplit("/", 1)[-1].replace("_", " ")  # "America/New_York" -> "New York"
    elif "/" in text and ("path" in name or "file" in name):
        text = text.rstrip("/").rsplit("/", 1)[-1]
    return text if len(text) <= MAX_SAID_CHARS else None
