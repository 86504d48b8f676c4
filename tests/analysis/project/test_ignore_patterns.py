"""gitignore-style patterns agree with git itself (`git check-ignore` on a real tree)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from analysis.project.ignore_patterns import IgnorePatterns, invalid_reason

FOLDERS = ["a", "a/b", "a/b/c", "b", "build", "build/keep", "x/build", "x/y/z", "foo.d",
           "deep/a/x/a/y", "éé"]
FILES = ["a/f.yaml", "a/b/f.yaml", "a/b/c/g.tmp.yaml", "b/h", "build/keep/k", "build/o",
         "x/build/o", "x/y/z/f.yaml", "foo.d/i", "top.yaml", "deep/a/x/a/y/x", "[x]", "a b", "q?",
         "x/y/z/ab.tmp.yaml", "éé/ü.yaml"]
ONE_PATTERN = [
    "a", "a/", "/a", "a/b", "b", "build/", "build/**", "**/build", "*.yaml", "*.tmp.yaml",
    "a/**/f.yaml", "**/b/**", "**/a*/**/a*/**/x", "x/*/z", "?op.yaml", "[a-c]", "[!a]",
    "[^a-b]/f.yaml", "\\[x]", "a\\ b", "a b   ", "q\\?", "**", "**/", "*", "*/", "/**/f.yaml",
    "a/**", "a/**/", "deep/**/y", "**/*.d/", "[[:alpha:]]", "[[:digit:]]x", "x/y/**/*.yaml",
    "f.*", "#c", "\\#c", "a/b/c/", "a**b", "***", "x/**/o", "ab*", "*b.tmp*", "*.tmp.*", "éé/",
    "*/ü.yaml", "é*",
]
# (No one-character non-ASCII name: git's `?` and classes take a byte, see below.)
SEVERAL = [
    ["build/", "!build/keep"], ["build/**", "!build/keep/"], ["*.yaml", "!a/**"],
    ["a/", "!a/b"], ["*.yaml", "!top.yaml", "top*"], ["**/z/", "!x/y/z/"],
]


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    root = tmp_path_factory.mktemp("repository")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for file in FILES:
        (root / file).touch()
    return root


def git_ignores(root: Path, lines: list[str]) -> dict[str, bool]:
    (root / ".gitignore").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = subprocess.run(
        ["git", "-c", "core.quotePath=false", "check-ignore", "--no-index", "-v", "-n",
         "--stdin"], cwd=root, input="\n".join(FOLDERS + FILES) + "\n", capture_output=True,
        text=True, encoding="utf-8", check=False).stdout
    verdicts = {}
    for line in out.splitlines():
        source, path = line.split("\t")
        # `.gitignore:2:!pattern` re-includes; `::` is no match
        verdicts[path] = source != "::" and not source.split(":", 2)[2].startswith("!")
    return verdicts


@pytest.mark.parametrize("lines", [[pattern] for pattern in ONE_PATTERN] + SEVERAL, ids=repr)
def test_a_path_is_ignored_exactly_when_git_ignores_it(repository: Path, lines: list[str]) -> None:
    expected = git_ignores(repository, lines)
    assert len(expected) == len(FOLDERS + FILES)
    spec = IgnorePatterns(lines)
    assert {path: spec.ignores(path, path in FOLDERS) for path in FOLDERS + FILES} == expected


def test_a_wildcard_or_class_takes_one_character_not_one_byte() -> None:
    # git's wildmatch counts UTF-8 bytes (`?` never matches `é` there); a user writing `?` or
    # `[é]` means the character.
    for pattern in ("?", "[é]", "[!a]", "[[:alpha:]]", "?/ü.yaml", "[[:alpha:]]/?.yaml"):
        assert IgnorePatterns([pattern]).ignores("é/ü.yaml", False), pattern
    assert not IgnorePatterns(["[!é]"]).ignores("é", True)


def test_verdict_is_the_last_matching_pattern_on_the_path_alone() -> None:
    spec = IgnorePatterns(["build/", "!build/keep", "*.tmp"])
    assert spec.verdict("build", True) is True
    # The walk never enters `build/`; judged alone, the later negation wins.
    assert spec.verdict("build/keep", False) is False
    assert spec.ignores("build/keep", False) is True
    assert spec.verdict("a.tmp", False) is True
    assert spec.verdict("a.yaml", False) is None


@pytest.mark.parametrize(("pattern", "reason"), [
    ("[abc", "an unterminated ["), ("a/[b\\", "an unterminated ["), ("x\\", "a trailing \\"),
    ("!", "matches nothing"), ("/", "matches nothing"), ("[[:vowel:]]", "[:vowel:]"),
])
def test_patterns_git_never_matches_are_named_and_skipped(
    repository: Path, pattern: str, reason: str
) -> None:
    assert reason in (invalid_reason(pattern) or "")
    assert IgnorePatterns([pattern, "b"]).ignores("b", True)
    assert not IgnorePatterns([pattern]).ignores("abc", False)
    # git skips it too: nothing in the tree is ignored
    assert not any(git_ignores(repository, [pattern]).values())
