"""The package's layers, checked from its imports: no module or folder imports one that imports it
back (the imports inside functions count too: they hide a circle, they do not break it), the package's
top level stays short, and the loop and the bundled toolboxes do not import each other."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "ovos_agentic_loop": ROOT / "ovos_agentic_loop",
    "ovos_agentic_loop_toolboxes": ROOT / "toolboxes",
}
MAX_TOP_LEVEL_MODULES = 12


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module by dotted name: its file and whether it is a package's ``__init__``."""
    found: dict[str, tuple[Path, bool]] = {}
    for name, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            relative = path.relative_to(folder)
            if "__pycache__" in relative.parts or "examples" in relative.parts:
                continue  # SKILL.md examples are data
            parts = [name, *relative.with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = _modules()


def _known(name: str) -> str | None:
    """The innermost module of ours that ``name`` lies in (a name imported from a module is the module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = module if is_package else module.rpartition(".")[0]
        for _ in range(max(node.level - 1, 0)):
            base = base.rpartition(".")[0]
        prefix = node.module or "" if not node.level else ".".join(p for p in (base, node.module) if p)
        names = [f"{prefix}.{alias.name}" for alias in node.names]
    for name in names:
        known = _known(name)
        if known is not None and known != module:
            yield known


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[module] = {
            target
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for target in _imported(module, is_package, node)
        }
    return graph


GRAPH = _graph()


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        circles.append(sorted(part))
    return circles


def _children(package: str) -> dict[str, str]:
    """Each module below ``package`` -> the child of ``package`` (module or folder) it lies in."""
    prefix = package + "."
    return {m: prefix + m[len(prefix) :].split(".")[0] for m in MODULES if m.startswith(prefix)}


def _folder_graph(package: str) -> dict[str, set[str]]:
    """The imports between the children of ``package``, each folder taken as one node."""
    child = _children(package)
    graph: dict[str, set[str]] = {node: set() for node in child.values()}
    for module, node in child.items():
        graph[node] |= {child[t] for t in GRAPH[module] if t in child and child[t] != node}
    return graph


def _packages() -> Iterable[str]:
    return sorted(m for m, (_, is_package) in MODULES.items() if is_package)


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert _circles(GRAPH) == []


def test_no_folder_imports_one_that_imports_it_back() -> None:
    circles = {package: _circles(_folder_graph(package)) for package in _packages()}
    assert {package: found for package, found in circles.items() if found} == {}


def test_the_walk_finds_imports_inside_functions() -> None:
    # personas builds the engine inside a function: the edge is seen all the same
    assert "ovos_agentic_loop.engine" in GRAPH["ovos_agentic_loop.personas"]
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_top_level_is_short() -> None:
    top = sorted(p.name for p in PACKAGES["ovos_agentic_loop"].glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_the_loop_and_the_toolboxes_do_not_import_each_other() -> None:
    crossing = sorted(
        (module, target)
        for module, targets in GRAPH.items()
        for target in targets
        if module.split(".")[0] != target.split(".")[0]
    )
    assert crossing == []
