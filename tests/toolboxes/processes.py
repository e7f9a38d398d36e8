"""Process checks shared by the shell and skill attack tests."""

from __future__ import annotations

from pathlib import Path


def pid_alive(pid: int) -> bool:
    """True while the process runs; a zombie (killed, not yet reaped by init) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
