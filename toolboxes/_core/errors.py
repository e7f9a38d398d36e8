"""The two error types of the toolboxes: one for the model, one for the operator.

- :class:`ToolCallError`: a refusal or failure the MODEL can fix by changing its call. OPM wraps it
  in ``RuntimeError`` (``__cause__`` is this exception; ``BundledToolBox.call_tool`` appends this
  message to the wrapper's, for hosts that show only ``str(exc)``) and the engine shows the model
  the cause, so the message says what to do next.
  Its two refinements keep the built-in type callers already catch: :class:`PathRefused` is also
  a ``PermissionError`` (a path outside the root), :class:`BadInput` also a ``ValueError`` (text
  too long, a NUL byte).
- :class:`ToolboxConfigError`: a bad persona config, raised from the toolbox constructor (before
  ``ToolBox.__init__``, which would hide it) with the toolbox id and the key named. It is a
  ``ValueError`` so loaders that catch ``ValueError`` keep working.
"""

from __future__ import annotations

__all__ = ["BadInput", "PathRefused", "ToolCallError", "ToolboxConfigError"]


class ToolCallError(Exception):
    """A refusal or failure whose message tells the model how to fix its call."""


class PathRefused(ToolCallError, PermissionError):
    """A model-supplied path that leaves the root folder (or changed while it was opened)."""


class BadInput(ToolCallError, ValueError):
    """Model-supplied text that cannot be used as it is: too long, or with a NUL byte."""


class ToolboxConfigError(ValueError):
    """A toolbox config section that cannot be used; the message names the toolbox and the key."""
