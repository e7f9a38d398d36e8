"""OVOS log lines without the cost of ``ovos_utils.log.LOG``'s caller lookup.

``LOG.info(...)`` names its caller with ``inspect.stack()``, which reads the source file of
every frame on the stack: 5-10 ms a call on a loaded 2-core machine, paid by every turn's
"final" line and by every toolbox a persona loads. :func:`ovos_logger` gives the logger
``LOG`` itself would build (same handlers, format and level; ``LOG.set_level`` reaches it),
named after the module instead of module, function and line, for microseconds a call.
The loop's INFO and DEBUG lines go through it; its rare warnings still go through ``LOG``.
"""

from __future__ import annotations

import logging

from ovos_utils.log import LOG

__all__ = ["ovos_logger"]


def ovos_logger(module: str) -> logging.Logger:
    """The OVOS logger for ``module`` (looked up per call: ``LOG.name`` may change at runtime)."""
    name = f"{LOG.name} - {module}" if LOG.name else module
    logger: logging.Logger = LOG.create_logger(name, tostdout=True)
    return logger
