"""gitignore-style patterns (gitignore(5)), matched without backtracking.

The project configuration's `exclude`/`extend-exclude` and the `.gitignore` files a folder walk
reads both come from the repository being checked, which may be hostile. A translation to
regular expressions backtracks (`**/a*/**/a*/**/a*/**/a*/x` took 0.38 s against one path 80
folders deep with pathspec, and each further `**` multiplies it), so patterns are matched here
in two levels that never go back more than one step:

- a pattern is a list of segments, each `**` (any number of folders) or a name glob; it is run
  against the path's names by keeping the set of every pattern position reached so far (a
  Thompson simulation), so one pattern against one path costs at most
  (pattern segments + 1) × (path names) name-glob checks;
- a name glob (`*`, `?`, `[…]`, literal characters) is checked against one name by the classic
  two-pointer algorithm that, on a mismatch, resumes only from the latest `*`: at most
  (glob length) × (name length) steps.

Syntax, as git reads it: blank lines and lines starting with `#` match nothing; trailing spaces
are dropped unless escaped with `\\`; `!` negates (a later pattern wins); `\\` makes the next
character literal; a trailing `/` matches folders only; a pattern with a `/` at its start or in
its middle is anchored to the base folder, otherwise it matches at any depth; `*` matches within
one name, `?` one character, `[a-z]`, `[!a-z]`/`[^a-z]` and `[[:alpha:]]`-style classes one
character; a whole-segment `**` matches any number of folders (`a/**/b` includes `a/b`; a
trailing `/**` needs at least one name below, so `build/**` leaves `build` itself and a later
`!build/keep` can re-include); other runs of `*` act as one `*`. As in git, a path is ignored
when it or any folder above it is (`ignores`); a pattern git would never match (an unterminated
`[`, a trailing lone `\\`) never matches here either, and `invalid_reason` names it so a
configuration can be refused. Matching is case-sensitive (git's default on Linux). One
difference from git: `?` and a class take one character, where git takes one UTF-8 byte (so in
git `?` never matches `é`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


class _Star:
    """`*`: any run of characters within one name."""


class _Any:
    """`?`: any one character."""


STAR = _Star()
ANY = _Any()
_POSIX_CLASSES = {
    "alnum": str.isalnum, "alpha": str.isalpha, "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127, "digit": str.isdigit,
    "graph": lambda c: c.isprintable() and c != " ", "lower": str.islower,
    "print": str.isprintable, "punct": lambda c: c.isprintable() and not c.isalnum()
    and c != " ", "space": str.isspace, "upper": str.isupper,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}


@dataclass(frozen=True)
class _Class:
    """`[…]`: one character among ranges and named classes (or outside them, `negated`)."""

    negated: bool
    ranges: tuple[tuple[str, str], ...]
    named: tuple[str, ...]

    def admits(self, char: str) -> bool:
        inside = any(low <= char <= high for low, high in self.ranges) or any(
            _POSIX_CLASSES[name](char) for name in self.named)
        return inside != self.negated


_Token = str | _Star | _Any | _Class


class InvalidPattern(ValueError):
    """A pattern git would never match; the message says why."""


def _class(text: str, start: int) -> tuple[_Class, int]:
    """The class opening at `text[start] == '['` and the index after its `]`."""
    index = start + 1
    negated = index < len(text) and text[index] in "!^"
    index += negated
    ranges: list[tuple[str, str]] = []
    named: list[str] = []
    first = True
    while index < len(text) and (first or text[index] != "]"):
        first = False
        if text.startswith("[:", index):
            end = text.find(":]", index + 2)
            name = text[index + 2:end] if end >= 0 else ""
            if name not in _POSIX_CLASSES:
                raise InvalidPattern(f"an unknown character class [:{name}:]" if end >= 0
                                     else "an unterminated [: character class")
            named.append(name)
            index = end + 2
            continue
        low, index = _class_char(text, index)
        high = low
        if text.startswith("-", index) and index + 1 < len(text) and text[index + 1] != "]":
            high, index = _class_char(text, index + 1)
        ranges.append((low, high))
    if index >= len(text):
        raise InvalidPattern("an unterminated [ (write \\[ for a literal bracket)")
    return _Class(negated, tuple(ranges), tuple(named)), index + 1


def _class_char(text: str, index: int) -> tuple[str, int]:
    if text[index] == "\\":
        if index + 1 >= len(text):
            raise InvalidPattern("an unterminated [ (write \\[ for a literal bracket)")
        return text[index + 1], index + 2
    return text[index], index + 1


def _glob(segment: str) -> tuple[_Token, ...]:
    """A name glob's tokens; runs of `*` become one (they match the same)."""
    tokens: list[_Token] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "\\":
            if index + 1 >= len(segment):
                raise InvalidPattern(
                    "a trailing \\ that escapes nothing (write \\\\ for a backslash)")
            tokens.append(segment[index + 1])
            index += 2
        elif char == "*":
            if not tokens or tokens[-1] is not STAR:
                tokens.append(STAR)
            index += 1
        elif char == "?":
            tokens.append(ANY)
            index += 1
        elif char == "[":
            klass, index = _class(segment, index)
            tokens.append(klass)
        else:
            tokens.append(char)
            index += 1
    return tuple(tokens)


class _Glob:
    """One name glob, with the literal shapes answered by string methods."""

    def __init__(self, tokens: tuple[_Token, ...]) -> None:
        self.tokens = tokens
        self.fixed = sum(token is not STAR for token in tokens)  # characters a match needs
        literal = "".join(token for token in tokens if isinstance(token, str))
        self.exact = literal if len(literal) == len(tokens) else None
        # `*.tmp.yaml`: a literal after one leading `*`
        self.suffix = literal if tokens[:1] == (STAR,) and len(literal) == len(tokens) - 1 \
            else None

    def matches(self, name: str) -> bool:
        if self.exact is not None:
            return name == self.exact
        if self.suffix is not None:
            return name.endswith(self.suffix)
        if len(name) < self.fixed:
            return False
        return _wildcard(self.tokens, name)


def _wildcard(tokens: tuple[_Token, ...], name: str) -> bool:
    """Whether `tokens` match all of `name`. On a mismatch only the latest `*` takes one more
    character: a match that lengthens an earlier `*` instead can lengthen the latest one by as
    much (the tokens between them matched already), so going further back finds nothing new."""
    at = position = 0
    star = -1  # token index of the latest `*`
    star_position = 0  # where the text after that `*` starts being matched
    while position < len(name):
        token = tokens[at] if at < len(tokens) else None
        if token is STAR:
            star, star_position = at, position
            at += 1
        elif token is not None and _admits(token, name[position]):
            at += 1
            position += 1
        elif star >= 0:
            star_position += 1
            at, position = star + 1, star_position
        else:
            return False
    return all(token is STAR for token in tokens[at:])


def _admits(token: _Token, char: str) -> bool:
    if isinstance(token, str):
        return token == char
    if isinstance(token, _Class):
        return token.admits(char)
    return token is ANY


class _Many:
    """A whole-segment `**`: any number of folders."""


MANY = _Many()
_Segment = _Glob | _Many


def _trim_trailing_spaces(line: str) -> str:
    """Without its trailing spaces, but for one escaped with a backslash."""
    trimmed = line.rstrip(" ")
    if trimmed == line:
        return line
    backslashes = len(trimmed) - len(trimmed.rstrip("\\"))
    return trimmed + " " if backslashes % 2 else trimmed


class Pattern:
    """One line of a gitignore-style file, compiled."""

    def __init__(self, line: str) -> None:
        """Raises InvalidPattern for a pattern git would never match."""
        text = _trim_trailing_spaces(line)
        self.include = not text.startswith("!")  # False: re-includes what it matches
        if not self.include:
            text = text[1:]
        self.folders_only = text.endswith("/") and not text.endswith("\\/")
        if self.folders_only:
            text = text[:-1]
        anchored = "/" in text
        if text.startswith("/"):
            text = text[1:]
        raw = text.split("/") if text else []
        segments: list[_Segment] = [] if anchored or not raw else [MANY]
        for index, segment in enumerate(raw):
            if segment != "**":
                segments.append(_Glob(_glob(segment)))
            elif index == len(raw) - 1 and index:
                # A trailing `/**` matches what is inside the folder, not the folder itself.
                segments += [_Glob((STAR,)), MANY]
            elif not segments or segments[-1] is not MANY:
                segments.append(MANY)
        if not segments:
            raise InvalidPattern("an empty pattern, which matches nothing")
        self.segments = tuple(segments)

    def prefixes(self, names: list[str]) -> Iterator[int]:
        """Each n (1…len(names)) such that the pattern matches the first n names."""
        end = len(self.segments)
        reached = self._with_many({0})
        for count, name in enumerate(names, 1):
            following = set()
            for at in reached:
                if at == end:
                    continue
                segment = self.segments[at]
                if not isinstance(segment, _Glob):
                    following.add(at)  # `**` takes this name too
                elif segment.matches(name):
                    following.add(at + 1)
            if not following:
                return
            reached = self._with_many(following)
            if end in reached:
                yield count

    def _with_many(self, reached: set[int]) -> set[int]:
        """`reached` plus the position after each `**` in it (`**` may match no folder;
        runs of `**` are one, so one step is enough)."""
        return reached | {at + 1 for at in reached if at < len(self.segments)
                          and self.segments[at] is MANY}


def invalid_reason(line: str) -> str | None:
    """Why git would never match `line` as a pattern, or None."""
    try:
        Pattern(line)
    except InvalidPattern as error:
        return str(error)
    return None


def _is_pattern(line: str) -> bool:
    return bool(line.strip(" ")) and not line.startswith("#")


class IgnorePatterns:
    """The patterns of one gitignore-style list, relative to one base folder."""

    def __init__(self, lines: Iterable[str]) -> None:
        """Comments and blank lines are skipped, and so are invalid patterns (as git does; a
        configuration refuses them first with `invalid_reason`)."""
        self.patterns: list[Pattern] = []
        for line in lines:
            if _is_pattern(line) and invalid_reason(line) is None:
                self.patterns.append(Pattern(line))

    def _verdicts(self, path: str, is_dir: bool) -> list[bool | None]:
        """For each folder above `path` (relative, `/`-separated) and `path` itself: True
        ignored, False re-included, None no pattern matches; the last matching pattern wins."""
        names = [name for name in path.split("/") if name]
        verdicts: list[bool | None] = [None] * len(names)
        for pattern in self.patterns:
            for count in pattern.prefixes(names):
                if not pattern.folders_only or count < len(names) or is_dir:
                    verdicts[count - 1] = pattern.include
        return verdicts

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """The verdict on `path` alone (folders above it already judged by the caller)."""
        verdicts = self._verdicts(path, is_dir)
        return verdicts[-1] if verdicts else None

    def ignores(self, path: str, is_dir: bool) -> bool:
        """Whether `path` or a folder above it is ignored: git never looks inside an ignored
        folder, so nothing in it can be re-included."""
        return True in self._verdicts(path, is_dir)


def invalid_patterns(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(pattern, why git would never match it) for each such line."""
    for line in lines:
        if _is_pattern(line):
            reason = invalid_reason(line)
            if reason is not None:
                yield line, reason
