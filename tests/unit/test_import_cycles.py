"""No import cycle anywhere in src/teamdeck: not between modules, not between packages.

import-linter's contracts (pyproject.toml) see the imports Python runs at import time;
they leave out ``if TYPE_CHECKING:`` blocks (``exclude_type_checking_imports``) and know
nothing of a module named in a string. A cycle hidden in an annotation or a function
body is still a cycle for a reader: neither side can be read, or moved, without the
other. So this test builds its own graph from the AST of every module, counting every
``import`` and ``from … import`` wherever it stands (module level, ``TYPE_CHECKING``,
inside a function), and fails on any strongly connected component:

- of modules (``a`` imports ``b`` imports ``a``);
- of the children of any package (``protocol.tasks`` and ``protocol.team`` importing
  each other through any of their modules, at any depth).

``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``.
A string of the form ``"teamdeck.pkg.module:attr"`` (how a registry names a class it
loads later) is an edge too: it is an import, written where no contract looks.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
LOADER_STRING = re.compile(r"(teamdeck(?:\.\w+)+):\w+")


def module_files(src: Path = SRC) -> dict[str, Path]:
    """Every module of teamdeck by dotted name (a package by its own name)."""
    modules: dict[str, Path] = {}
    for path in sorted((src / "teamdeck").rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Module -> the teamdeck modules it imports anywhere in its source."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    origin = ".".join([*base, node.module] if node.module else base)
                else:
                    origin = node.module or ""
                for alias in node.names:
                    submodule = f"{origin}.{alias.name}"
                    targets.append(submodule if submodule in modules else origin)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                loader = LOADER_STRING.fullmatch(node.value)
                targets = [loader.group(1)] if loader else []
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def package_graphs(graph: Mapping[str, set[str]], modules: Mapping[str, Path]) -> dict[str, dict[str, set[str]]]:
    """For each package, the graph of its children: child A -> child B when any module
    in A (at any depth) imports any module in B."""
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    children: dict[str, dict[str, set[str]]] = defaultdict(dict)

    def child_of(package: str, module: str) -> str | None:
        prefix = package + "."
        if not module.startswith(prefix):
            return None
        return prefix + module[len(prefix) :].split(".")[0]

    for package in packages:
        for module, imported in graph.items():
            source = child_of(package, module)
            if source is None:
                continue
            edges = children[package].setdefault(source, set())
            for target in imported:
                destination = child_of(package, target)
                if destination is not None and destination != source:
                    edges.add(destination)
                    children[package].setdefault(destination, set())
    return children


def test_the_graph_sees_imports_in_functions_type_checking_and_loader_strings(tmp_path: Path) -> None:
    """The graph builder counts the imports import-linter leaves out (checked on a
    planted package, so the main test cannot pass by seeing nothing)."""
    package = tmp_path / "teamdeck"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from teamdeck import b\n")
    (package / "b.py").write_text("def f():\n    from teamdeck.sub.c import x\n")
    (package / "sub" / "c.py").write_text("import teamdeck.sub.d\nx = 1\n")
    (package / "sub" / "d.py").write_text('LOADERS = {"a": "teamdeck.a:A"}\n')
    modules = module_files(tmp_path)
    graph = import_graph(modules)
    assert graph["teamdeck.a"] == {"teamdeck.b"}
    assert graph["teamdeck.b"] == {"teamdeck.sub.c"}
    assert graph["teamdeck.sub.d"] == {"teamdeck.a"}
    assert cycles(graph) == [["teamdeck.a", "teamdeck.b", "teamdeck.sub.c", "teamdeck.sub.d"]]
    assert cycles(package_graphs(graph, modules)["teamdeck"]) == [["teamdeck.a", "teamdeck.b", "teamdeck.sub"]]


def test_no_module_imports_itself_back() -> None:
    modules = module_files()
    found = cycles(import_graph(modules))
    assert not found, "import cycles between modules:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_package_imports_its_sibling_back() -> None:
    modules = module_files()
    graph = import_graph(modules)
    found = [
        (package, component)
        for package, children in sorted(package_graphs(graph, modules).items())
        for component in cycles(children)
    ]
    assert not found, "import cycles between packages:\n" + "\n".join(
        f"in {package}: " + " <-> ".join(component) for package, component in found
    )
