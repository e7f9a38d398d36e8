"""A minimal ctypes binding of Linux Landlock, the unprivileged kernel sandbox.

Standard library only, on purpose: the launcher (``_launcher.py``) runs this file in the child with
``python -S -E -s``, where no installed package (pydantic, OPM) can be imported. The parent uses
:func:`abi_version` to report the status; the child calls :func:`restrict` just before ``exec``.

The PyPI ``landlock`` package is a 1.0 development release; the four system calls needed here
are stable kernel ABI, so a small binding is safer than a pre-release dependency.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable
from dataclasses import dataclass, field

# The system call numbers are the same on every architecture (the unified table, Linux 5.13).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights (ABI 1, then REFER in 2, TRUNCATE in 3, IOCTL_DEV in 5).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15
# Network rights (ABI 4) and scopes (ABI 6).
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
_WRITE_V1 = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_SYM
_DEVICES = MAKE_CHAR | MAKE_BLOCK


def _fs_rights(abi: int) -> int:
    """Every filesystem right this ABI knows: rights not handled are silently allowed."""
    rights = READ | _WRITE_V1 | _DEVICES
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def _file_rights(abi: int, write: bool) -> int:
    """Rights that make sense on a single file (the kernel refuses directory rights there)."""
    rights = EXECUTE | READ_FILE
    if write:
        rights |= WRITE_FILE | (TRUNCATE if abi >= 3 else 0)
    return rights


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # The kernel struct is __attribute__((packed)).
    _fields_ = (
        ("allowed_access", ctypes.c_uint64),
        ("parent_fd", ctypes.c_int32),
    )


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The Landlock ABI of the running kernel; 0 when there is none (not Linux, too old, disabled)."""
    if platform.system() != "Linux":
        return 0
    try:
        libc = _libc()
        version = int(libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(version, 0)


@dataclass
class Policy:
    """What the sandboxed program may touch. Paths that do not exist are skipped.

    ``read`` folders allow reading and executing below them, ``write`` folders everything a
    program does to files (create, change, remove); ``files_rw`` are single files such as
    ``/dev/null``. With ``network`` False, TCP connect and bind are refused (ABI >= 4). Signals
    to processes outside the sandbox and abstract unix sockets are always refused (ABI >= 6).
    """

    read: list[str] = field(default_factory=list)
    write: list[str] = field(default_factory=list)
    files_rw: list[str] = field(default_factory=list)
    network: bool = False


def restrict(policy: Policy) -> int:
    """Confine the calling thread (and every program it execs) to ``policy``; returns the ABI.

    Raises ``OSError`` when the kernel has no Landlock or a call fails: the caller must then not
    exec the program, since it asked for a sandbox.
    """
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    libc = _libc()
    attr = _RulesetAttr(handled_access_fs=_fs_rights(abi))
    size = 8
    if abi >= 4 and not policy.network:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_SIGNAL | (0 if policy.network else SCOPE_ABSTRACT_UNIX_SOCKET)
        size = 24
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        _fail("landlock_create_ruleset")
    try:
        _add_paths(libc, ruleset, policy.read, READ, _file_rights(abi, write=False))
        _add_paths(libc, ruleset, policy.write, _fs_rights(abi), _file_rights(abi, write=True))
        _add_paths(libc, ruleset, policy.files_rw, 0, _file_rights(abi, write=True))
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            _fail("prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _add_paths(
    libc: ctypes.CDLL, ruleset: int, paths: Iterable[str], dir_rights: int, file_rights: int
) -> None:
    for path in paths:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # Not on this system (/lib32, /usr/local/...): nothing to allow.
        try:
            rights = dir_rights if os.path.isdir(path) else file_rights
            if not rights:
                continue
            rule = _PathBeneathAttr(allowed_access=rights, parent_fd=fd)
            if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
                _fail(f"landlock_add_rule({path})")
        finally:
            os.close(fd)


def _fail(what: str) -> None:
    err = ctypes.get_errno()
    raise OSError(err, f"{what} failed: {os.strerror(err)}")
