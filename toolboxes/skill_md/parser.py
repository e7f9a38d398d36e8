"""Parsing of one SKILL.md: YAML frontmatter, markdown sections and the OpenSage Parameters grammar.

Accepted ``## Parameters`` grammar (one ``###`` heading per parameter, fenced code ignored)::

    ### name (required, positional position 0)      -> positional, argv slot 0
    ### paths (optional, positional position 2+)    -> variadic positional: a list, appended last
    ### --option (optional, named parameter)         -> "--option VALUE"
    ### --flag (optional, flag)                      -> "--flag" when true, nothing when false
    ### NAME (required, env var)                     -> environment variable NAME=VALUE
    **Type**: `str` | `int` | `float` | `bool` | `list` (of strings); anything else is a string
    A default is read from "(default: `x`)" on the Type line or "Defaults to `x`" in the text.

Without a qualifier a heading starting with '-' is a named option (a flag if its type is bool)
and any other heading is a required positional in order of appearance. ``## Timeout`` takes the
first number, in seconds unless followed by "min"/"minutes".
"""

from __future__ import annotations

import keyword
import os
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from ovos_agentic_loop_toolboxes._core.paths import Sandbox
from ovos_agentic_loop_toolboxes._core.process import is_dangerous_env_name

__all__ = ["Param", "Skill", "SkillParseError", "parse_parameters", "parse_skill_md", "split_sections"]

ParamKind = Literal["positional", "named", "flag", "env"]
SCRIPT_SUFFIXES = (".py", ".sh")
# A SKILL.md is instructions for a model: anything near these sizes is an accident or an attack.
MAX_SKILL_BYTES = 1024 * 1024
MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_YAML_DEPTH = 20

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_PARAM_HEADING = re.compile(r"^`?(?P<name>[^\s(`]+)`?\s*(?:\((?P<qual>[^)]*)\))?\s*$")
_POSITION = re.compile(r"position\s+(\d+)\s*(\+)?")
_TYPE_LINE = re.compile(r"\*\*Type\*\*\s*:?\s*`(?P<type>[^`]+)`(?P<rest>.*)", re.IGNORECASE)
_DEFAULT = re.compile(r"default(?:s to|s)?\s*[:=]?\s*`(?P<value>[^`]*)`", re.IGNORECASE)
_TIMEOUT = re.compile(r"(\d+(?:\.\d+)?)\s*(m(?:in(?:ute)?s?)?\b|h(?:ours?)?\b)?", re.IGNORECASE)
_TYPES = {
    "str": "str", "string": "str", "path": "str", "file": "str",
    "int": "int", "integer": "int",
    "float": "float", "number": "float",
    "bool": "bool", "boolean": "bool",
    "list": "list", "array": "list", "list[str]": "list",
    "subcommand": "bool",
}  # fmt: skip


class SkillParseError(ValueError):
    """A SKILL.md that cannot be used; the message says what to fix in the file."""


class _FrontmatterLoader(yaml.SafeLoader):
    """``yaml.safe_load`` without aliases and with bounded nesting.

    ``safe_load`` is safe from code execution, not from size: nine anchors of nine aliases each
    (billion laughs) load as a small graph of shared lists, and the first ``str()`` of it (the skill
    name, ``should_run_in_sandbox``) walks 9**9 items and never returns. Frontmatter needs neither
    anchors nor deep nesting, so an alias or a 21st level is a parse error. The depth bound also
    keeps PyYAML's recursive composer far from Python's recursion limit.
    """

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # unannotated in the stubs
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed here", mark)
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # as above
                raise yaml.composer.ComposerError(
                    None, None, f"nesting deeper than {MAX_YAML_DEPTH} levels is not allowed", mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


@dataclass(frozen=True)
class Param:
    """One entry of ``## Parameters``.

    ``key`` is the argument name the model sees: the heading without leading dashes, '-' turned
    into '_' (``--dry-run`` -> ``dry_run``). ``name`` is the spelling put on the command line.
    """

    name: str
    key: str
    kind: ParamKind
    type: str
    required: bool
    position: int | None = None
    variadic: bool = False
    default: Any = None
    description: str = ""
    subcommand: bool = False


@dataclass(frozen=True)
class Skill:
    """A parsed skill folder."""

    name: str
    description: str
    path: str  # the SKILL.md file
    folder: str
    body: str
    frontmatter: dict[str, Any]
    sections: dict[str, str]
    params: tuple[Param, ...] = ()
    timeout: float | None = None
    scripts: tuple[str, ...] = ()
    rel: str = ""  # folder relative to its discovery root, '/'-separated ("" for a single file)
    nested: bool = False  # inside another skill's folder
    origin: str = ""
    param_error: str | None = field(default=None)

    @property
    def executable(self) -> bool:
        return bool(self.scripts)

    @property
    def sandbox(self) -> str | None:
        value = self.frontmatter.get("should_run_in_sandbox")
        return None if value is None else str(value)


def parse_skill_md(path: str) -> Skill:
    """Parse the SKILL.md at ``path``; raise :class:`SkillParseError` when it cannot be used."""
    try:
        with open(path, encoding="utf-8") as fh:
            # Bounded: a multi-gigabyte SKILL.md in a skills folder must not be read whole.
            text = fh.read(MAX_SKILL_BYTES + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillParseError(f"cannot read: {exc}") from exc
    if len(text) > MAX_SKILL_BYTES:
        raise SkillParseError(f"the file is larger than {MAX_SKILL_BYTES} bytes; keep SKILL.md short")
    frontmatter, body = split_frontmatter(text)
    folder = os.path.dirname(os.path.abspath(path))
    name = frontmatter.get("name")
    if not isinstance(name, (str, int, float, type(None))):
        raise SkillParseError("frontmatter 'name' must be plain text")
    name = " ".join(str(name).split()) if name not in (None, "") else os.path.basename(folder)
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillParseError("frontmatter has no 'description' (the text the model uses to pick the skill)")
    sections = split_sections(body, level=2)
    params: tuple[Param, ...] = ()
    param_error = None
    if "parameters" in sections:
        try:
            params = parse_parameters(sections["parameters"])
        except SkillParseError as exc:
            param_error = str(exc)
    timeout = parse_timeout(sections.get("timeout", ""))
    scripts = _runnable_scripts(folder, sections.get("usage", ""))
    if scripts and not ("parameters" in sections or "should_run_in_sandbox" in frontmatter):
        # Instruction skills (Anthropic format) also ship helper scripts; without a Parameters
        # section or the OpenSage sandbox key there is no argument schema, so they stay references.
        scripts = ()
    return Skill(
        name=name,
        description=" ".join(description.split()),
        path=os.path.abspath(path),
        folder=folder,
        body=body.strip(),
        frontmatter=frontmatter,
        sections=sections,
        params=params,
        timeout=timeout,
        scripts=scripts,
        param_error=param_error,
    )


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """The YAML mapping between the leading '---' lines, and the markdown after it."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise SkillParseError("no YAML frontmatter: the file must start with a '---' line")
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        raise SkillParseError("frontmatter is not closed by a '---' line")
    source = "\n".join(lines[1:end])
    if len(source) > MAX_FRONTMATTER_CHARS:
        raise SkillParseError(f"frontmatter is longer than {MAX_FRONTMATTER_CHARS} characters")
    try:
        data = yaml.load(source, Loader=_FrontmatterLoader)  # A SafeLoader subclass: no Python objects.
    except yaml.YAMLError as exc:
        raise SkillParseError(f"frontmatter is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SkillParseError("frontmatter must be a YAML mapping with 'name' and 'description'")
    return data, "\n".join(lines[end + 1 :])


def split_sections(markdown: str, level: int) -> dict[str, str]:
    """Headings of exactly ``level`` (lower-cased) -> their text; the first of a title wins."""
    sections: dict[str, str] = {}
    for title, text in iter_sections(markdown, level):
        sections.setdefault(title.lower(), text)
    return sections


def iter_sections(markdown: str, level: int) -> list[tuple[str, str]]:
    """``(heading, text)`` for each heading of exactly ``level``, outside fenced code, in order.

    A heading of a higher rank (fewer '#') ends the current section without starting one.
    """
    out: list[tuple[str, str]] = []
    current: str | None = None
    buf: list[str] = []
    in_fence = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match and len(match.group(1)) <= level:
            if current is not None:
                out.append((current, "\n".join(buf).strip()))
            current = match.group(2).strip() if len(match.group(1)) == level else None
            buf = []
        elif current is not None:
            buf.append(line)
    if current is not None:
        out.append((current, "\n".join(buf).strip()))
    return out


def parse_parameters(section: str) -> tuple[Param, ...]:
    """The ``### ...`` entries of a Parameters section, positionals sorted by position."""
    params: list[Param] = []
    next_position = 0
    for heading, text in iter_sections(section, level=3):
        param = _parse_param(heading, text, next_position)
        if param.kind == "positional" and param.position is not None:
            next_position = max(next_position, param.position + 1)
        params.append(param)
    keys = [p.key for p in params]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise SkillParseError(f"Parameters: {duplicates} appear more than once")
    positions = [p.position for p in params if p.kind == "positional"]
    if len(set(positions)) != len(positions):
        # OpenSage documents alternative subcommands at one position; we cannot map that to argv.
        raise SkillParseError("Parameters: two positional parameters share one position")
    return tuple(sorted(params, key=lambda p: (p.kind != "positional", p.position or 0)))


def _parse_param(heading: str, text: str, next_position: int) -> Param:
    match = _PARAM_HEADING.match(heading)
    if not match:
        raise SkillParseError(f"Parameters: cannot read the heading '### {heading}'")
    name, qual = match.group("name"), (match.group("qual") or "").lower()
    type_match = _TYPE_LINE.search(text)
    raw_type = type_match.group("type").strip().lower() if type_match else "str"
    ptype = _TYPES.get(raw_type, "str")
    description_lines = [ln.strip() for ln in text.split("\n") if ln.strip() and not _TYPE_LINE.search(ln)]
    description = " ".join(description_lines)
    default_match = _DEFAULT.search(type_match.group("rest") if type_match else "") or _DEFAULT.search(
        description
    )
    position_match = _POSITION.search(qual)
    if "flag" in qual:
        kind: ParamKind = "flag"
    elif "env" in qual:
        kind = "env"
    elif "positional" in qual or position_match or not name.startswith("-"):
        kind = "positional"
    else:
        kind = "flag" if ptype == "bool" else "named"
    if kind == "flag":
        ptype = "bool"
    required = "required" in qual or (kind == "positional" and "optional" not in qual)
    key = name.lstrip("-").replace("-", "_")
    if not key.isidentifier() or keyword.iskeyword(key):
        raise SkillParseError(f"Parameters: {name!r} is not usable as an argument name")
    if kind == "env" and (not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or is_dangerous_env_name(name)):
        raise SkillParseError(f"Parameters: environment variable {name!r} may not be set by a model")
    if kind == "named" and not name.startswith("-"):
        name = f"--{name}"
    position = None
    variadic = False
    if kind == "positional":
        position = int(position_match.group(1)) if position_match else next_position
        variadic = bool(position_match and position_match.group(2)) or ptype == "list"
        if variadic:
            ptype = "list"
    default = _coerce_default(default_match.group("value"), ptype) if default_match else None
    if kind == "flag" and default is None:
        default = False
    return Param(
        name=name,
        key=key,
        kind=kind,
        type=ptype,
        required=required and default is None,
        position=position,
        variadic=variadic,
        default=default,
        description=description[:300],
        subcommand=raw_type == "subcommand",
    )


def _coerce_default(value: str, ptype: str) -> Any:
    value = value.strip().strip("\"'")
    try:
        if ptype == "int":
            return int(value)
        if ptype == "float":
            return float(value)
        if ptype == "bool":
            return {"true": True, "false": False, "yes": True, "no": False}.get(value.lower())
        if ptype == "list":
            return None  # A list default in prose is ambiguous; the script applies its own.
    except ValueError:
        return None
    return value


def parse_timeout(section: str) -> float | None:
    """Seconds from a ``## Timeout`` section ("Default timeout: 60 seconds", "2 minutes")."""
    match = _TIMEOUT.search(section)
    if not match:
        return None
    value = float(match.group(1))
    unit = (match.group(2) or "").lower()
    if unit.startswith("h"):
        value *= 3600
    elif unit.startswith("m"):
        value *= 60
    return value if value > 0 else None


def _runnable_scripts(folder: str, usage: str) -> tuple[str, ...]:
    """``scripts/*.py|*.sh`` inside the folder (no links out, no '_private' helpers).

    When ``## Usage`` names some of them, only those are entry points; the rest are helpers.
    """
    scripts_dir = os.path.join(folder, "scripts")
    try:
        names = sorted(os.listdir(scripts_dir))
    except OSError:
        return ()
    skill_folder = Sandbox(folder)
    found = []
    for name in names:
        full = os.path.join(scripts_dir, name)
        if name.startswith(("_", ".")) or not name.endswith(SCRIPT_SUFFIXES) or not os.path.isfile(full):
            continue
        if not skill_folder.contains_real(full):
            continue  # A link leaving the skill folder is not this skill's script.
        found.append(full)
    mentioned = [f for f in found if os.path.basename(f) in usage]
    return tuple(mentioned or found)
