"""Texts the engine checks further than a string's type: a path relative to the workspace, a
JavaScript regular expression, a URL. Each is a `Text` of the vocabulary whose own check runs once
the text passes `Text`'s."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from analysis.document.yaml_nodes import YNode, YScalar
from analysis.document.yaml_profile import INVALID_VALUE
from analysis.schema.vocabulary import Text
from analysis.schema.walk import Walk
from sandbox.syntax import check_syntax


@dataclass
class _Format(Text):
    """A text `Text` accepts, then checked by `check_format`."""

    def check(self, walk: Walk, node: YNode, path: str) -> None:
        reported = len(walk.out)
        super().check(walk, node, path)
        if len(walk.out) == reported and isinstance(node, YScalar):
            self.check_format(walk, node, str(node.value), path)

    def check_format(self, walk: Walk, node: YScalar, value: str, path: str) -> None:
        raise NotImplementedError


_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


@dataclass
class RelativePath(_Format):
    """`save_to`: a non-empty path relative to the workspace, as the engine refuses any other."""

    def check_format(self, walk: Walk, node: YScalar, value: str, path: str) -> None:
        if not value:
            problem = "must not be empty: write a relative path such as 'out/{{ run.id }}.json'"
        elif value.startswith(("/", "\\")) or _DRIVE.match(value):
            problem = (f"'{value}' is an absolute path; write it relative to the workspace, "
                       "e.g. 'out/{{ run.id }}.json'")
        elif ".." in re.split(r"[\\/]", value):
            problem = (f"'{value}' must not contain a '..' segment: write a path inside the "
                       "workspace")
        else:
            return
        walk.report(INVALID_VALUE, node, f"{path} {problem}")


PATTERN_MAX_SOURCE = 512  # the engine's ceiling on an authored pattern
_REGEX_LINE_BREAKS = {"\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029"}


@lru_cache(maxsize=256)
def regex_problem(pattern: str) -> str | None:
    """Why `new RegExp(pattern)` (no flags, as the engine compiles it) throws, or None: the
    pattern is written as a regex literal and given to the engine's parser (QuickJS compiles
    regex literals while parsing)."""
    literal: list[str] = []
    index = 0
    while index < len(pattern):
        ch = pattern[index]
        if ch == "\\" and index + 1 == len(pattern):
            return "a '\\' at the end of the pattern escapes nothing"
        if ch == "\\":
            escaped = pattern[index + 1]
            literal.append(_REGEX_LINE_BREAKS.get(escaped, "\\" + escaped))
            index += 2
            continue
        literal.append("\\/" if ch == "/" else _REGEX_LINE_BREAKS.get(ch, ch))
        index += 1
    problem = check_syntax("/" + "".join(literal) + "/")
    return problem.message if problem is not None else None


@dataclass
class Regex(_Format):
    """`validation.pattern`: a JavaScript regular expression the engine compiles at load."""

    def check_format(self, walk: Walk, node: YScalar, pattern: str, path: str) -> None:
        if len(pattern) > PATTERN_MAX_SOURCE:
            walk.report(INVALID_VALUE, node, f"{path} is {len(pattern)} characters long; the "
                        f"engine accepts at most {PATTERN_MAX_SOURCE}: simplify it")
        elif (problem := regex_problem(pattern)) is not None:
            walk.report(INVALID_VALUE, node,
                        f"{path} is not a valid JavaScript regular expression ({problem}): fix "
                        "it, the engine compiles it with new RegExp(pattern) when it loads")


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)\Z", re.DOTALL)


def is_url(value: str) -> bool:
    """Whether the WHATWG URL parser (the engine's `z.string().url()`) takes `value`, as far as
    authors get it wrong: a scheme, and a host after the schemes that need one."""
    found = _SCHEME.match(value)
    if found is None:
        return False
    if found.group(1).lower() not in ("http", "https", "ws", "wss", "ftp"):
        return True
    return bool(re.split(r"[/?#]", found.group(2).lstrip("/\\"), maxsplit=1)[0])


@dataclass
class Url(_Format):
    """A URL (the engine's `z.string().url()`): a scheme and a rest."""

    def check_format(self, walk: Walk, node: YScalar, value: str, path: str) -> None:
        if not is_url(value):
            walk.report(INVALID_VALUE, node, f"{path} '{node.value}' is not a URL the engine "
                        "can parse: write a scheme and a host, e.g. https://host/path")
