"""The plain values inside a JSON value: what a result says, without its keys; a number as digits."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["leaves", "plain_number", "positional_json"]

# A JSON text's tokens that matter here: a string (skipped whole, so nothing inside one is read as a
# number) or a number in scientific notation.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.])-?\d+(?:\.\d+)?[eE][+-]?\d+')


def leaves(value: Any) -> list[str]:
    """The plain values in a JSON value, in order (lists and objects flattened, null and booleans
    left out: they are flags, not results)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, bool) or value is None:
        return []
    text = plain_number(value) if isinstance(value, float) and "e" in repr(value) else str(value).strip()
    return [text] if text else []


def plain_number(value: float | str) -> str:
    """A number in positional notation: 9e-06 -> 0.000009, 1e+20 -> 100000000000000000000; a
    float's shortest exact digits otherwise (0.1 stays 0.1). A voice reads "9.0e-06" as letters."""
    try:
        number = Decimal(repr(value) if isinstance(value, float) else value)
    except InvalidOperation:
        return str(value)
    if not number.is_finite():
        return str(value)
    text = format(number, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def positional_json(text: str) -> str:
    """JSON text (``json.dumps``'s) with every number in scientific notation written out: a
    model shown ``9e-06`` copies it ("9.0e-06 pm"), and a voice reads that as letters."""
    if "e" not in text and "E" not in text:
        return text
    return _JSON_TOKEN.sub(
        lambda m: m.group() if m.group().startswith('"') else plain_number(m.group()), text
    )
