"""The layout's promises (docs/architecture.md): dependencies point one way — server → analysis →
sandbox, and inside them from the rooms that use to the rooms that are used — and no module takes
part in an import circle. Every import statement counts, also one inside a function or under
`TYPE_CHECKING`: an import deferred to dodge a circle still ties the two modules together."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGES = ("sandbox", "analysis", "server")

# A room (a package or a folder of one) and the modules it must not import: a name stands for
# itself and everything below it.
FORBIDDEN: dict[str, frozenset[str]] = {
    "sandbox": frozenset({"analysis", "server", "pygls", "lsprotocol", "yaml"}),
    "analysis": frozenset({"server", "pygls", "lsprotocol"}),
    # What the text is and where things sit: below every room that reads documents.
    "analysis/document": frozenset({"analysis.schema", "analysis.checks", "analysis.ide",
                                    "analysis.dryrun", "analysis.project", "analysis.types"}),
    # The schema is data and its walk: the checks, the editor logic and dry runs build on it.
    "analysis/schema": frozenset({"analysis.checks", "analysis.ide", "analysis.dryrun",
                                  "analysis.types"}),
    # Types of what expressions read: built on the document and the schema, read by the checks,
    # the editor logic and dry runs.
    "analysis/types": frozenset({"analysis.checks", "analysis.ide", "analysis.dryrun"}),
    # The command line runs without the language server (and without pygls or lsprotocol).
    "server/cli": frozenset({"server.lsp", "pygls", "lsprotocol"}),
}
# The first code the `serve` process runs, before anything heavy is loaded: the standard library
# and its own room only.
STDLIB_ONLY = "server/lsp/boot"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def project_modules() -> dict[str, Path]:
    return {module_name(path): path
            for package in PACKAGES for path in sorted((REPO_ROOT / package).rglob("*.py"))}


def imported_names(path: Path) -> Iterator[str]:
    """Every module an import statement in the file names: `from a.b import c` names `a.b.c`
    when that is a module of the project, else `a.b`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    modules = project_modules()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path}: relative import"
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                yield submodule if submodule in modules else node.module


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def sources_in(room: str) -> list[Path]:
    sources = sorted((REPO_ROOT / room).rglob("*.py"))
    assert sources, f"{room} has no Python files: the layout changed, update this test"
    return sources


@pytest.mark.parametrize("room", sorted(FORBIDDEN))
def test_room_imports_nothing_it_must_not(room: str) -> None:
    violations = sorted(
        f"{path.relative_to(REPO_ROOT)} imports {name}"
        for path in sources_in(room)
        for name in set(imported_names(path))
        if any(within(name, forbidden) for forbidden in FORBIDDEN[room])
    )
    assert not violations, violations


def test_boot_imports_only_the_standard_library_and_itself() -> None:
    own = STDLIB_ONLY.replace("/", ".")
    violations = sorted(
        f"{path.relative_to(REPO_ROOT)} imports {name}"
        for path in sources_in(STDLIB_ONLY)
        for name in set(imported_names(path))
        if not within(name, own) and name.split(".")[0] not in sys.stdlib_module_names
        and name != "__future__"
    )
    assert not violations, violations


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_names(path):
            # `import a.b.c` of a name that is not a module file (an attribute) ties to `a.b`.
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
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

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle() -> None:
    assert circles(import_graph()) == []


def test_a_circle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
