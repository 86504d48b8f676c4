"""Dependencies point one way: server → analysis → sandbox (docs/architecture.md)."""

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

FORBIDDEN = {
    "sandbox": {"analysis", "server", "pygls", "lsprotocol", "yaml"},
    "analysis": {"server", "pygls", "lsprotocol"},
}


def imported_top_level_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_nothing_above_it(package: str) -> None:
    sources = sorted((REPO_ROOT / package).rglob("*.py"))
    assert sources
    violations = {
        f"{path.relative_to(REPO_ROOT)} imports {name}"
        for path in sources
        for name in imported_top_level_modules(path) & FORBIDDEN[package]
    }
    assert not violations, sorted(violations)


def imported_modules(path: Path) -> set[str]:
    """Every absolute module `path` imports, at any depth (a lazy import counts)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_schema_imports_nothing_from_the_checks() -> None:
    """The checks read the schema walk's findings; the walk needs no check's context."""
    sources = sorted((REPO_ROOT / "analysis" / "schema").rglob("*.py"))
    assert sources
    violations = {
        f"{path.relative_to(REPO_ROOT)} imports {name}"
        for path in sources for name in imported_modules(path)
        if name == "analysis.checks" or name.startswith("analysis.checks.")
    }
    assert not violations, sorted(violations)
