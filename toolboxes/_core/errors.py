"""The two error types of the toolboxes: one for the model, one for the operator.

- :class:`ToolCallError`: a refusal or failure the MODEL can fix by changing its call. OPM wraps it
  in ``RuntimeError`` (``__cause__`` is this exception) and the engine shows the model the cause,
  so the message says what to do next.
- :class:`ToolboxConfigError`: a bad persona config, raised from the toolbox constructor (before
  ``ToolBox.__init__``, which would hide it) with the toolbox id and the key named. It is a
  ``ValueError`` so loaders that catch ``ValueError`` keep working.
"""

from __future__ import annotations

__all__ = ["ToolCallError", "ToolboxConfigError"]


class ToolCallError(Exception):
    """A refusal or failure whose message tells the model how to fix its call."""


class ToolboxConfigError(ValueError):
    """A toolbox config section that cannot be used; the message names the toolbox and the key."""
