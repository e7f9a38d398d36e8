"""Strict settings for persona sections, shared by the engine and the toolboxes.

Persona JSON is written by hand, and pydantic's default (lax) mode turns a string
``"false"`` into ``False`` only sometimes and ``true`` into ``1`` for an integer
field, so ``"max_iterations": true`` or ``"allow_shell": "false"`` would slip through
as something the author did not mean. A section parsed through :class:`StrictSection`
accepts only values of the declared JSON type (an integer is still accepted where a
float belongs), and :func:`describe_errors` turns a validation error into one line
that names every bad key, what it got and what fits. :func:`config_errors` is the ONE
place a bad section (not an object, or a bad value) becomes the caller's own error type
with that line, so the engine, the brain, the context plugin and every toolbox word it alike.

This package imports neither ``ovos_agentic_loop`` nor ``ovos_agentic_loop_toolboxes``,
so both can use it without importing each other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "TOOL_ANNOTATIONS_KEY",
    "TOOL_PROGRESS_KEY",
    "TOOL_ROLE_KEY",
    "SectionTypeError",
    "StrictSection",
    "config_errors",
    "describe_errors",
    "require_mapping",
]

#: The key of a tool's argument schema under which a toolbox states what the tool does, in MCP's
#: words (``readOnlyHint``, ``destructiveHint``) plus ``confirm`` (the toolbox's own "ask first").
#: It travels wherever OPM's tool definitions go (``tool_json_list``, ``tools_to_openai_spec``,
#: the bus); the loop reads it and takes it out of the schema before the model sees the tool.
TOOL_ANNOTATIONS_KEY = "x-tool-annotations"
#: The key, inside a tool's annotations, of what a voice says while the tool runs: a template per
#: language (``{"en": "Reading {path}.", "pt": "A ler {path}."}``) whose ``{names}`` are the call's
#: arguments. The loop says it when a turn has been silent a while (``progress_delay``).
TOOL_PROGRESS_KEY = "progress"

#: Among those annotations: the role a tool plays for the loop's rules, declared by its toolbox
#: (never guessed from argument names or description prose): ``{"kind": "calculator" | "converter" |
#: "reader" | "runner", "argument": the argument that holds the expression / the unit, zone or place
#: a converter gives its value in ("and in tokyo" changes it) / path / command line, and for a
#: runner "programs" (the programs it allows; absent: any installed one), for a calculator
#: "functions" (the functions an expression may call)}``. A tool without one gets no role-based rule.
TOOL_ROLE_KEY = "role"


class StrictSection(BaseModel):
    """Base for a persona section's typed model: strict types, frozen after parsing.

    Subclasses choose what to do with unknown keys (``extra``) in their own ``model_config``;
    pydantic merges it with this one.
    """

    model_config = ConfigDict(strict=True, frozen=True)


def describe_errors(exc: ValidationError) -> str:
    """``key 'k': problem (got value)`` per bad key, joined by ``; ``: a line an author can act on.

    A union type (``int | None``) reports one error per member; they are grouped under their key
    so the author reads one sentence per key, not one per type tried.
    """
    grouped: dict[str, list[Any]] = {}
    for err in exc.errors():
        # loc: ('key',), ('key', 0) for a list item, ('key', 'str') for a member of a union.
        loc = err["loc"]
        parts = [str(p) for p in loc if isinstance(p, int) or p == loc[0]]
        grouped.setdefault(".".join(parts) or "(section)", []).append(err)
    return "; ".join(_describe(key, errs) for key, errs in grouped.items())


def _describe(key: str, errors: list[Any]) -> str:
    got = errors[0].get("input")
    kind = type(got).__name__
    what = "a string" if kind == "str" else f"a {kind}"
    messages = " or ".join(dict.fromkeys(e["msg"] for e in errors))
    return f"key {key!r}: {messages} (got {what} {_short(got)})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class SectionTypeError(TypeError):
    """A section that is not a JSON object (raised by :func:`require_mapping`)."""


@contextlib.contextmanager
def config_errors(owner: str, error: Callable[[str], Exception]) -> Iterator[None]:
    """Inside this block a bad section raises ``error("<owner>: invalid configuration: <what is wrong>")``.

    Caught: :class:`SectionTypeError` from :func:`require_mapping` and pydantic's
    ``ValidationError`` (described by :func:`describe_errors`, one sentence per bad key). Anything
    else passes through unchanged: it is a bug, not the author's mistake. The original error stays
    the ``__cause__``.
    """
    try:
        yield
    except SectionTypeError as exc:
        raise error(f"{owner}: invalid configuration: {exc}") from exc
    except ValidationError as exc:
        raise error(f"{owner}: invalid configuration: {describe_errors(exc)}") from exc


def require_mapping(value: Any, *, what: str) -> dict[str, Any]:
    """``value`` as a dict; ``None`` means an empty section; anything else is a
    :class:`SectionTypeError` (a ``TypeError``) naming ``what``.

    A section written as a string (say the brain's URL instead of ``{"api_url": ...}``) must
    not quietly become ``{}`` and run on the defaults.
    """
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    raise SectionTypeError(
        f'{what} must be a JSON object of settings (e.g. {{"key": value}}), '
        f"got {type(value).__name__} {_short(value)}"
    )
