"""Chat templates for the bundled model: the stock one and a derived tool-call one.

With its own template the 1.5B model writes tool calls as bare JSON in a ```json
fence instead of inside the ``<tool_call>`` tags that template asks for, and
llama-server, which then looks for the tags, returns no native ``tool_calls``
(0 of 10 here); an engine that reads only native calls takes the call for the
final answer. The derived template asks for exactly what the model likes to write,
a fenced ```json {"name": ..., "arguments": ...}``` block, renders earlier calls
the same way, and no longer mentions ``<tool_call>``: llama-server then parses the
fenced block as a native tool call (20 of 20 here) and plain answers stay text.

Both templates are written next to the model; ``gguf`` (the ``local`` extra)
reads the stock one from the GGUF metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ovos_agentic_loop.local.model import BUNDLED_MODEL, ModelSpec, model_path

__all__ = [
    "TemplateError",
    "TemplateMode",
    "derive_tool_template",
    "ensure_templates",
    "read_chat_template",
    "template_path",
]

TemplateMode = Literal["tools", "stock"]


class TemplateError(RuntimeError):
    """The GGUF has no chat template, or it is not the shape we know how to rewrite."""


# The instruction block of the Qwen2.5 template, and what replaces it.
_STOCK_INSTRUCTION = (
    "For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\\n<tool_call>\\n"
    '{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}\\n</tool_call>'
)
_TOOL_INSTRUCTION = (
    "To call a function, reply with only a fenced json block holding the function name and "
    "its arguments, and nothing else:\\n```json\\n"
    '{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n```\\n'
    "After the function results arrive, answer the user in plain text."
)
# How an earlier assistant call is rendered in the history: same fenced shape.
_STOCK_CALL_OPEN = '\'\\n<tool_call>\\n{"name": "\''
_TOOL_CALL_OPEN = '\'\\n```json\\n{"name": "\''
_STOCK_CALL_CLOSE = "'}\\n</tool_call>'"
_TOOL_CALL_CLOSE = "'}\\n```'"
_MARKER = "{#- ovos-agentic-loop tool-call template: the model's own with fenced json tool calls. -#}\n"


def read_chat_template(gguf_path: Path) -> str:
    """The ``tokenizer.chat_template`` stored in a GGUF file."""
    try:
        from gguf import GGUFReader
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise TemplateError(
            "reading GGUF metadata needs `gguf`: pip install 'ovos-agentic-loop[local]'"
        ) from exc
    field = GGUFReader(str(gguf_path)).fields.get("tokenizer.chat_template")
    if field is None:
        raise TemplateError(f"{gguf_path} has no tokenizer.chat_template")
    return str(field.contents())


def derive_tool_template(stock: str) -> str:
    """The stock Qwen2.5 template with the ``<tool_call>`` wording replaced by a ```json block."""
    replacements = [
        (_STOCK_INSTRUCTION, _TOOL_INSTRUCTION),
        (_STOCK_CALL_OPEN, _TOOL_CALL_OPEN),
        (_STOCK_CALL_CLOSE, _TOOL_CALL_CLOSE),
    ]
    derived = stock
    for old, new in replacements:
        if old not in derived:
            raise TemplateError(f"unexpected chat template: cannot find {old!r} to replace")
        derived = derived.replace(old, new)
    return _MARKER + derived


def template_path(mode: TemplateMode, spec: ModelSpec = BUNDLED_MODEL) -> Path:
    """Where the template file for ``mode`` lives (next to the model)."""
    return model_path(spec).with_name(f"{Path(spec.filename).stem}.{mode}.jinja")


def ensure_templates(spec: ModelSpec = BUNDLED_MODEL) -> dict[TemplateMode, Path]:
    """Write both template files from the model's metadata, if missing; return their paths."""
    paths: dict[TemplateMode, Path] = {
        "stock": template_path("stock", spec),
        "tools": template_path("tools", spec),
    }
    if all(p.is_file() for p in paths.values()):
        return paths
    stock = read_chat_template(model_path(spec))
    paths["stock"].write_text(stock)
    paths["tools"].write_text(derive_tool_template(stock))
    return paths
