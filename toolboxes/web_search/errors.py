"""The one exception the web tools raise for the model.

OPM wraps a tool's exception in ``RuntimeError``; the loop shows the model the original
message, so each message says what happened and what the model can do next (another URL,
other words, answer from what it knows). Nothing here is ever turned into a fake result.
"""

from __future__ import annotations

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError

__all__ = ["BlockedURL", "WebToolError"]


class WebToolError(ToolCallError):
    """A failure or refusal of web_search / fetch_page, written for the model."""


class BlockedURL(WebToolError):
    """fetch_page refused a URL by policy (scheme, address, domain); retrying it is pointless."""
