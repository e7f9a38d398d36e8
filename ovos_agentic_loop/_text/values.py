"""The plain values inside a JSON value: what a result says, without its keys."""

from __future__ import annotations

from typing import Any

__all__ = ["leaves"]


def leaves(value: Any) -> list[str]:
    """The plain values in a JSON value, in order (lists and objects flattened, null and booleans
    left out: they are flags, not results)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, bool) or value is None:
        return []
    text = str(value).strip()
    return [text] if text else []
