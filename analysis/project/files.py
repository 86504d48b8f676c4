"""Where a directory walk finds the Relavium files (workflows and agents, as
`analysis.project.kinds.file_kind` tells them), and how they are read.

A walk never leaves its root: a symbolic link is followed only when it resolves to a regular file
inside the walked folder (links to files elsewhere, to devices, FIFOs or sockets, dangling links
and loops are skipped with a note), and linked folders are not descended into; a folder that
cannot be listed is reported (`Walk.unreadable`), never passed over. A file is read with its
size checked first (stat, then a bounded read), so an oversized or endless file costs at most the
limit in memory; `read_regular_file` also refuses what is not a regular file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from analysis.project.ignore_patterns import IgnorePatterns
from analysis.project.kinds import PROJECT_FOLDER, file_kind


@dataclass
class Walk:
    """The workflow and agent files under a folder, in sorted order, why any candidate was
    skipped, and the folders that could not be listed (their files are unknown, so a check of them
    is incomplete)."""

    files: list[Path]
    skipped: list[str]
    unreadable: list[str]
    # the walk stopped at `max_files` (the language server's start-up budget); the rest unknown
    truncated: bool = False


def walk_workflow_files(
    root: Path, excluded: Callable[[Path, bool], bool] | None = None, gitignore: bool = True,
    max_files: int | None = None,
) -> Walk:
    """`excluded(path, is_dir)` prunes folders and files (project excludes); with `gitignore`,
    so do the `.gitignore` files of the walked tree and of its folders up to the repository's
    top (the nearest folder holding `.git`). With `max_files`, the walk stops once it has found
    that many files (`Walk.truncated`)."""
    walk = Walk([], [], [])
    real_root = os.path.realpath(root)
    ignores = {os.path.normpath(root): _inherited_gitignores(root) if gitignore else []}

    def unlisted(error: OSError) -> None:
        # os.walk passes over a folder it cannot list; a check must not pass it over silently.
        walk.unreadable.append(f"{Path(error.filename)}: cannot read this folder "
                               f"({error.strerror}); its files were not checked")

    for folder, dirs, names in os.walk(root, onerror=unlisted):
        specs = ignores.pop(os.path.normpath(folder))
        if gitignore:
            specs = [*specs, *_gitignore_in(folder)]

        def skip(path: Path, is_dir: bool, specs: list[_Ignore] = specs) -> bool:
            return bool(excluded and excluded(path, is_dir)) or _ignored(path, is_dir, specs)

        dirs[:] = sorted(
            d for d in dirs
            if (not d.startswith(".") or d == PROJECT_FOLDER) and not skip(Path(folder, d), True)
        )
        for d in dirs:
            ignores[os.path.normpath(os.path.join(folder, d))] = specs
        for name in sorted(names):
            path = Path(folder, name)
            # Judged on the absolute path: `check .` run inside a `.relavium/` folder must see
            # the folder its files are in (and `.relavium/..` is not inside it).
            if file_kind(Path(os.path.abspath(path))) is None or skip(path, False):
                continue
            refusal = _outside_or_irregular(path, real_root)
            if refusal:
                walk.skipped.append(f"{path}: skipped: {refusal}")
            elif max_files is not None and len(walk.files) >= max_files:
                walk.truncated = True
                return walk
            else:
                walk.files.append(path)
    return walk


# A .gitignore's folder (absolute) and its patterns.
_Ignore = tuple[str, IgnorePatterns]


def _gitignore_in(folder: str) -> list[_Ignore]:
    path = os.path.join(folder, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(MAX_SOURCE_BYTES).splitlines()
    except OSError:  # none here (or unreadable: git would not apply it either)
        return []
    return [(os.path.abspath(folder), IgnorePatterns(lines))]


def _inherited_gitignores(root: Path) -> list[_Ignore]:
    """The .gitignore files above `root` inside its repository, outermost first."""
    absolute = Path(os.path.abspath(root))
    if (absolute / ".git").exists():
        return []
    folders: list[Path] = []
    for folder in absolute.parents:
        folders.append(folder)
        if (folder / ".git").exists():
            return [spec for folder in reversed(folders) for spec in _gitignore_in(str(folder))]
    return []


def _ignored(path: Path, is_dir: bool, specs: list[_Ignore]) -> bool:
    """git's verdict: the deepest .gitignore with a matching pattern decides (`!` re-includes)."""
    verdict = None
    absolute = os.path.abspath(path)
    for base, spec in specs:
        include = spec.verdict(Path(os.path.relpath(absolute, base)).as_posix(), is_dir)
        if include is not None:
            verdict = include
    return bool(verdict)


def _outside_or_irregular(path: Path, real_root: str) -> str | None:
    """Why a walk must not read `path`, or None. A link into the tree is as good as the file."""
    try:
        real = os.path.realpath(path, strict=True)
        mode = os.stat(real).st_mode
    except OSError:
        return "a dangling or looping symbolic link"
    if os.path.commonpath([real, real_root]) != real_root:
        return "a symbolic link to a file outside the checked folder"
    if not stat.S_ISREG(mode):
        # A FIFO would block the read forever; a device could be endless or have side effects.
        return "not a regular file"
    return None


class SourceTooLarge(Exception):
    def __init__(self, size: str) -> None:
        super().__init__(size)
        self.size = size


def read_bounded(stream: BinaryIO, known_size: int | None) -> str:
    """The stream's text (UTF-8, a byte order mark dropped), refusing more than the limit before
    holding more than the limit in memory. Raises SourceTooLarge, OSError, UnicodeDecodeError."""
    if known_size is not None and known_size > MAX_SOURCE_BYTES:
        raise SourceTooLarge(f"{known_size} bytes")
    data = stream.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceTooLarge(f"over {MAX_SOURCE_BYTES} bytes")
    # utf-8-sig: a byte order mark is not a column, as editors and SARIF count them.
    return data.decode("utf-8-sig")


def read_source(path: str) -> str:
    """A file's text by `read_bounded`; a regular file's size is known before any read."""
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        return read_bounded(handle, info.st_size if stat.S_ISREG(info.st_mode) else None)


def read_regular_file(path: str) -> str:
    """`read_source` for a path that must name a regular file (through any links): opened without
    blocking, as opening a FIFO waits for a writer, and refused with OSError unless it is one."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file (a FIFO or a device could block or "
                          "never end)")
        return read_bounded(handle, info.st_size)
