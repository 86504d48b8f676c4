"""A hostile repository's exclude patterns and .gitignore files cannot stall `check` or the
server: patterns are matched without backtracking (analysis/project/ignore_patterns.py), so the work
grows with the pattern and the path, never exponentially in the number of wildcards. With
pathspec's regular expressions `**/a*/**/a*/**/a*/**/a*/x` took 0.38 s against one path 80
folders deep and each further `**` multiplied it. Witnessed by the Python lines executed (the
whole matcher is Python), never by time."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from analysis.project.config import ProjectConfig
from analysis.project.files import walk_workflow_files
from analysis.project.ignore_patterns import IgnorePatterns
from tests.operations import lines_executed

ROOT = Path("/project")


def excluding(patterns: list[str], path: str, is_dir: bool = False) -> int:
    """The work of one `exclude` verdict, compiling the patterns included."""
    def judge() -> None:
        ProjectConfig(ROOT, exclude=tuple(patterns)).excludes(ROOT / path, is_dir)
    return lines_executed(judge, "analysis")


def ignoring(lines: list[str], path: str) -> int:
    """The work of one .gitignore verdict on a file, as the folder walk asks it."""
    return lines_executed(lambda: IgnorePatterns(lines).verdict(path, False), "analysis")


def stars(count: int) -> str:
    """`**/a*/` repeated: each `**` may take any number of the path's `a` folders."""
    return "**/a*/" * count + "x"


def deep(depth: int) -> str:
    """`a/a/…/y`: every prefix fits, the end never does, so nothing stops the search early."""
    return "a/" * depth + "y"


def name_stars(count: int) -> str:
    return "*a" * count + "*b"


# (what is grown, the work at size 1 and at size 10)
CASES: list[tuple[str, Callable[[int], int]]] = [
    ("path depth, `**` pattern", lambda size: excluding([stars(4)], deep(20 * size))),
    ("`**` segments, deep path", lambda size: excluding([stars(3 * size)], deep(200))),
    ("path depth, .gitignore `**`", lambda size: ignoring([stars(4)], deep(20 * size))),
    ("`*` in one name, long name", lambda size: excluding([name_stars(3 * size)], "a" * 240)),
    ("name length, `*` in one name", lambda size: excluding([name_stars(8)], "a" * 24 * size)),
    ("literal run after `*`", lambda size: excluding(["*" + "a" * 10 + "[b]"], "a" * 200 * size)),
    ("pattern count", lambda size: ignoring([stars(3)] * 10 * size, deep(30))),
    ("folder verdict with `/**`", lambda size: excluding(
        ["**/a/**/a/**"] * 2, deep(20 * size), is_dir=True)),
]


@pytest.mark.parametrize(("grown", "work"), CASES, ids=[grown for grown, _ in CASES])
def test_ten_times_the_input_is_at_most_about_ten_times_the_work(
    grown: str, work: Callable[[int], int]
) -> None:
    small, large = work(1), work(10)
    assert small > 0
    assert large <= 12 * small, f"{grown}: {small} → {large} lines"


def test_one_pattern_against_one_path_is_bounded_by_their_product() -> None:
    # The documented bound: (pattern segments + 1) × names checks; a check on a one-letter name
    # is a few lines. 40 `**` against 400 folders: far below what a backtracking search visits.
    lines = excluding([stars(40)], deep(400))
    assert lines <= 40 * (2 * 40 + 2) * 401


def test_no_user_pattern_reaches_a_backtracking_regular_expression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The class, not one reproducer: neither a configuration's patterns nor a .gitignore file's
    are ever handed to `re`, whose engine backtracks."""
    (tmp_path / ".gitignore").write_text(stars(6) + "\n*.tmp.relavium.yaml\n", encoding="utf-8")
    (tmp_path / "a" / "a").mkdir(parents=True)
    (tmp_path / "a" / "a" / "w.relavium.yaml").write_text("x: 1\n", encoding="utf-8")
    (tmp_path / "a" / "s.tmp.relavium.yaml").write_text("x: 1\n", encoding="utf-8")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a user pattern reached re: {args[:1]!r}")
    for name in ("compile", "match", "fullmatch", "search"):
        monkeypatch.setattr(re, name, refuse)
    config = ProjectConfig(tmp_path, exclude=(stars(6), "[!x]*/", "node_modules/"))
    assert config.excludes(tmp_path / deep(12))
    walk = walk_workflow_files(tmp_path, config.excludes)
    assert walk.files == []  # `a/` is excluded by `[!x]*/`
    walk = walk_workflow_files(tmp_path, ProjectConfig(tmp_path, exclude=()).excludes)
    assert walk.files == [tmp_path / "a" / "a" / "w.relavium.yaml"]
