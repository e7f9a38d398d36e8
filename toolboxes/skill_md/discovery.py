"""Where skills come from, which ones are enabled, and a cache refreshed when files change.

Roots, in priority order (the first skill with a name wins; later duplicates are warned about):

1. ``skills_paths`` from the config: folders scanned recursively for SKILL.md.
2. ``extra_skill_md_paths`` (upstream's key): single SKILL.md files or folders. Files listed here
   are always loaded, whatever ``enabled_skills`` says: the operator named them one by one.
3. The per-user folder, ``$XDG_DATA_HOME/ovos-agentic-loop/skills`` (``~/.local/share/...``);
   ``user_skills_path`` overrides it, null or "" turns it off.
4. Installed packages: every entry point of the group ``opm.agents.skill_md`` whose value is a
   path (str) to a folder or a SKILL.md, or a module/package (its folder is scanned). This
   package's own examples (text-stats, kitchen-conversions) load only when ``enabled_skills``
   names them: with ``"all"`` they joined every persona's skills, and the bundled model called
   ``text_stats`` on its own answer instead of reading the persona's expense-policy skill.

``enabled_skills``: ``"all"`` (default) loads every top-level skill, i.e. all except skills nested
inside another skill's folder; ``None`` loads none; a list loads the skills whose folder, relative
to its root, is one of the entries or lies below one (``"fuzz"`` enables ``fuzz/run-campaign``),
or whose name equals an entry. Nested skills load only when an entry names them.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from ovos_utils.log import LOG

from ovos_agentic_loop_toolboxes._core.folders import data_dir
from ovos_agentic_loop_toolboxes.skill_md.parser import Skill, SkillParseError, parse_skill_md

__all__ = ["ENTRY_POINT_GROUP", "SkillCatalog", "SkillRoot", "entry_point_roots", "user_skills_dir"]

ENTRY_POINT_GROUP = "opm.agents.skill_md"
SKILL_FILE = "SKILL.md"
_PRUNE = frozenset({"node_modules", "__pycache__", "deps", "site-packages"})


def user_skills_dir() -> str:
    return data_dir("skills")


@dataclass(frozen=True)
class SkillRoot:
    """A folder to scan, or one SKILL.md (``single``); ``always`` bypasses ``enabled_skills``."""

    path: str
    origin: str
    single: bool = False
    always: bool = False
    named_only: bool = False  # its skills load only when enabled_skills names them ("all" is not enough)


#: This package's example skills (registered as an entry point by its pyproject).
EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")


def example_skill_names() -> list[str]:
    """The names of this package's example skills (what ``enabled_skills`` must list to load them)."""
    names = []
    for folder in sorted(os.listdir(EXAMPLES_DIR)):
        with contextlib.suppress(OSError, SkillParseError):
            names.append(parse_skill_md(os.path.join(EXAMPLES_DIR, folder, "SKILL.md")).name)
    return names


def entry_point_roots() -> list[SkillRoot]:
    """Roots declared by installed packages; a broken entry point is logged and skipped."""
    roots = []
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            value = ep.load()
        except Exception as exc:  # noqa: BLE001 - a third-party package may fail in any way.
            LOG.warning(f"skill entry point {ep.name!r} ({ep.value}) failed to load: {exc}")
            continue
        path = _entry_point_path(value)
        if path is None or not os.path.exists(path):
            LOG.warning(f"skill entry point {ep.name!r} ({ep.value}) is not a folder or SKILL.md: {value!r}")
            continue
        examples = os.path.realpath(path) == os.path.realpath(EXAMPLES_DIR)
        roots.append(
            SkillRoot(
                path=path,
                origin=f"entry point {ep.name}",
                single=os.path.isfile(path),
                named_only=examples,
            )
        )
    return roots


def _entry_point_path(value: Any) -> str | None:
    if isinstance(value, ModuleType):
        paths = list(getattr(value, "__path__", []))
        return paths[0] if paths else os.path.dirname(value.__file__ or "")
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    return None


def is_enabled(skill: Skill, enabled: Any, *, named_only: bool = False) -> bool:
    if enabled is None:
        return False
    entries = [enabled] if isinstance(enabled, str) else list(enabled)
    if "all" in entries and not skill.nested and not named_only:
        return True
    for entry in entries:
        prefix = str(entry).strip("/")
        if skill.name == prefix or (
            skill.rel and (skill.rel == prefix or skill.rel.startswith(prefix + "/"))
        ):
            return True
    return False


class SkillCatalog:
    """The enabled skills of some roots, re-read only when the tree's mtimes change.

    ``skills()`` walks the roots at most once per ``refresh_interval`` seconds; the walk records the
    mtime of every folder and SKILL.md, so an added, removed or edited skill is noticed, and the
    files are parsed again only then.
    """

    def __init__(
        self, roots: Callable[[], list[SkillRoot]], enabled: Any = "all", refresh_interval: float = 2.0
    ) -> None:
        self._roots = roots
        self.enabled = enabled
        self.refresh_interval = refresh_interval
        self._lock = threading.Lock()
        self._checked_at = float("-inf")
        self._fingerprint: tuple[Any, ...] | None = None
        self._skills: list[Skill] = []
        self.version = 0

    def skills(self) -> list[Skill]:
        with self._lock:
            now = time.monotonic()
            if now - self._checked_at >= self.refresh_interval:
                self._checked_at = now
                roots = self._roots()
                found, fingerprint = _scan(roots)
                if fingerprint != self._fingerprint:
                    self._fingerprint = fingerprint
                    self._skills = self._load(found)
                    self.version += 1
            return list(self._skills)

    def _load(self, found: list[tuple[SkillRoot, str, str, bool]]) -> list[Skill]:
        skills: list[Skill] = []
        by_name: dict[str, Skill] = {}
        for root, path, rel, nested in found:
            try:
                skill = parse_skill_md(path)
            except SkillParseError as exc:
                LOG.warning(f"skipping skill {path}: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - one broken file must not take every skill down.
                LOG.warning(f"skipping skill {path}: unexpected {type(exc).__name__}: {exc}")
                continue
            skill = replace(skill, rel=rel, nested=nested, origin=root.origin)
            if not (root.always or is_enabled(skill, self.enabled, named_only=root.named_only)):
                if root.named_only and is_enabled(skill, self.enabled):
                    # "all" leaves out the examples: say why it is missing, and how to get it in
                    LOG.info(f"example skill {skill.name!r} not loaded: name it in enabled_skills to use it")
                else:
                    LOG.debug(f"skill {skill.name!r} ({path}) is not enabled")
                continue
            if skill.name in by_name:
                LOG.warning(
                    f"duplicate skill name {skill.name!r}: {path} ignored, {by_name[skill.name].path} is used"
                )
                continue
            if skill.param_error:
                LOG.warning(f"skill {path}: {skill.param_error}; its scripts are not offered as tools")
            by_name[skill.name] = skill
            skills.append(skill)
        return skills


def _scan(roots: Iterable[SkillRoot]) -> tuple[list[tuple[SkillRoot, str, str, bool]], tuple[Any, ...]]:
    """Every SKILL.md under the roots with its relative folder, and a fingerprint of the walk."""
    found: list[tuple[SkillRoot, str, str, bool]] = []
    stamps: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    for root in roots:
        if root.single:
            real = os.path.realpath(root.path)
            if real not in seen and _stamp(real, stamps):
                seen.add(real)
                found.append((root, real, "", False))
            continue
        top = os.path.realpath(root.path)
        if not os.path.isdir(top):
            continue
        skill_dirs: list[str] = []
        # followlinks=False: a link inside a skills folder cannot pull in an arbitrary tree.
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _PRUNE)
            _stamp(dirpath, stamps)
            if SKILL_FILE not in filenames:
                continue
            path = os.path.join(dirpath, SKILL_FILE)
            if os.path.islink(path) or path in seen or not _stamp(path, stamps):
                continue
            seen.add(path)
            nested = any(dirpath.startswith(d + os.sep) for d in skill_dirs)
            skill_dirs.append(dirpath)
            rel = os.path.relpath(dirpath, top).replace(os.sep, "/")
            found.append((root, path, "" if rel == "." else rel, nested))
    return found, tuple(stamps)


def _stamp(path: str, stamps: list[tuple[str, int, int]]) -> bool:
    with contextlib.suppress(OSError):
        st = os.stat(path)
        stamps.append((path, st.st_mtime_ns, st.st_size))
        return True
    return False
