"""An operation count to witness complexity with, instead of time: the Python lines executed
inside chosen folders of this project. The same work gives the same count on any machine,
however busy; native work (libyaml, tree-sitter, C string methods) is not counted."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def lines_executed(action: Callable[[], object], *folders: str) -> int:
    """Python lines executed in files under ROOT/`folder` while `action` runs."""
    prefixes = tuple(str(ROOT / folder) for folder in folders)
    count = 0

    def lines(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return lines

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return lines if frame.f_code.co_filename.startswith(prefixes) else None

    sys.settrace(calls)
    try:
        action()
    finally:
        sys.settrace(None)
    return count
