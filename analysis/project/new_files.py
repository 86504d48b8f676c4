"""Creating a new file an editor command asked for (a sample-scope sidecar, an agent file) in a
tree a repository controls, so one that can plant a link where the file goes.

The file is created only inside one of `roots` (the workspace folders) with every link on the way
to its existing folder resolved, and from there never through a symbolic link (dangling or not)
and never over anything that exists: each missing folder is made and the file created relative
to the folder's descriptor (`O_NOFOLLOW`, the file `O_CREAT|O_EXCL`), so a file or link that
appears after the checks is refused too.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable
from pathlib import Path


class CreateRefused(ValueError):
    """Why the file was not created, naming it."""


def within(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path`, links resolved, is one of `roots` or inside one (links resolved too)."""
    real = Path(os.path.realpath(path))
    real_roots = [Path(os.path.realpath(root)) for root in roots]
    return any(real == root or root in real.parents for root in real_roots)


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error)


def create_new_file(base: Path, folders: tuple[str, ...], name: str, text: str,
                    roots: Iterable[Path], instead: str) -> Path:
    """Create `base/folders…/name` holding `text`, making the missing `folders` (`base` must
    exist); returns its path. `instead` ends the refusal of a file that exists ("remove it or
    …"). Raises `CreateRefused`."""
    target = base.joinpath(*folders, name)
    try:
        resolved = base.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        raise CreateRefused(f"cannot write {target} ({_reason(error)})") from None
    if not within(resolved, roots):
        raise CreateRefused(f"refusing to write {target}: it is outside the workspace folder(s)")
    try:
        directory = os.open(resolved, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as error:
        raise CreateRefused(f"cannot write {target} ({_reason(error)})") from None
    try:
        for folder in folders:
            with contextlib.suppress(FileExistsError):  # a link there: refused by the open
                os.mkdir(folder, 0o755, dir_fd=directory)
            inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                            dir_fd=directory)
            os.close(directory)
            directory = inner
        descriptor = os.open(
            name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
            0o644,
            dir_fd=directory,
        )
    except OSError as error:
        if error.errno in (errno.EEXIST, errno.ELOOP, errno.ENOTDIR):
            what = "a symbolic link" if target.is_symlink() or any(
                base.joinpath(*folders[:i + 1]).is_symlink() for i in range(len(folders))
            ) else "something that already exists"
            raise CreateRefused(f"refusing to write {target}: it is {what}; {instead}") from None
        raise CreateRefused(f"cannot write {target} ({_reason(error)})") from None
    finally:
        os.close(directory)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    return target
