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
