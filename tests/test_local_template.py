"""The tool-call template is derived from the stock one by replacing the <tool_call> wording."""

from __future__ import annotations

import pytest

from ovos_agentic_loop.local.model import is_ready, model_path
from ovos_agentic_loop.local.template import TemplateError, derive_tool_template, read_chat_template

# The three pieces of Qwen2.5's template that the derivation rewrites, verbatim.
STOCK = (
    '{%- if tools %}{{- "\\n</tools>\\n\\nFor each function call, return a json object with function name '
    "and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n"
    '{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}\\n</tool_call><|im_end|>\\n" }}'
    "{%- endif %}{%- for tool_call in message.tool_calls %}"
    '{{- \'\\n<tool_call>\\n{"name": "\' }}{{- tool_call.name }}'
    "{{- '\", \"arguments\": ' }}{{- tool_call.arguments | tojson }}{{- '}\\n</tool_call>' }}{%- endfor %}"
)


def test_derived_template_asks_for_fenced_json() -> None:
    derived = derive_tool_template(STOCK)
    assert "<tool_call>" not in derived
    assert "```json" in derived
    assert derived.count("```json") == 2  # the instruction and the rendering of earlier calls
    assert "{{- tool_call.arguments | tojson }}" in derived  # the rest is untouched


def test_unknown_template_is_an_error() -> None:
    with pytest.raises(TemplateError, match="cannot find"):
        derive_tool_template("{{ messages }}")


@pytest.mark.skipif(not is_ready(), reason="bundled model not assembled (ovos-agentic-loop setup)")
@pytest.mark.needs_package("gguf")  # read_chat_template reads the GGUF's metadata with it
def test_derivation_fits_the_bundled_model() -> None:
    stock = read_chat_template(model_path())
    assert "<tool_call>" in stock
    assert "<tool_call>" not in derive_tool_template(stock)
