"""Shared by the real-host tests: they need Linux (/proc, process groups) and /etc/passwd to aim at."""

from __future__ import annotations

import os
import sys

import pytest

if not sys.platform.startswith("linux") or not os.path.isfile("/etc/passwd"):
    pytest.skip(
        "the real-host tests need Linux (/proc, process groups) and /etc/passwd", allow_module_level=True
    )
