"""Find `{{ … }}` references in a template string (decoded scalar text).

Contract: `find_references(text)` returns every `{{ … }}` in order as a `TemplateRef` whose
indices are into `text` (map them to the document with `ScalarText.source_span`). A `}}` inside
quotes or brackets does not close a reference; an unclosed `{{` is plain text, as the engine treats
it. Recognised heads: `inputs.NAME`, `ctx.NAME`, `run.outputs["ID"]` (bracket-and-quote form: the
only one that adds a data edge), `run.outputs.ID` / `run.outputs['ID']` (recognised for
navigation, `edge` False), `run.id`, `secrets.NAME`. Filters: `| name` or `| name("arg")`.
Results are cached by text across document versions (`analysis.document.text_cache`, at most 4 MiB).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from analysis.document.text_cache import text_cache
from analysis.naming import JS_WHITESPACE

KNOWN_FILTERS = ("read_file", "json", "length", "default")
# How many arguments each filter takes (filters.ts requireArity): a different count fails.
FILTER_ARGUMENTS = {"read_file": 0, "json": 0, "length": 0, "default": 1}

_NAME = r"[A-Za-z0-9_-]+"
_HEAD = re.compile(
    r"\s*(?:"
    rf"(?P<scope>inputs|ctx|secrets)\s*\.\s*(?P<name>{_NAME})"
    r"|run\s*\.\s*outputs\s*\[\s*(?P<q>[\"'])(?P<bracket>[^\"'\\]*)(?P=q)\s*\]"
    r"|run\s*\.\s*outputs\s*\.\s*(?P<dotted>[A-Za-z_$][A-Za-z0-9_$]*)"
    r"|(?P<runid>run\s*\.\s*id)\b"
    r")"
)
# A filter part: `name` or `name(args)` (JavaScript's `\w` and `\s`, the `s` flag).
_FILTER_CALL = re.compile(rf"([A-Za-z_][A-Za-z0-9_]*)[{JS_WHITESPACE}]*(?:\((.*)\))?", re.DOTALL)
# The heads the engine's template lexer recognises (packages/core/src/interpolation/references.ts
# parseHead), matched on the trimmed text before the first top-level `|`.
_ENGINE_HEAD = re.compile(
    r"run\.outputs\[\s*([\"'])[^\"']*?\1\s*\]|run\.id(?![\w-])|(?:inputs|ctx|secrets)\.[A-Za-z0-9_-]+",
    re.ASCII,
)


@dataclass(frozen=True)
class TemplateFilter:
    """One `| name(args)` as the engine's lexer reads it (references.ts parseFilter): `name` is
    the filter's identifier, or the whole trimmed text when it is not `name` / `name(…)`;
    `arguments` counts the non-blank top-level comma-separated arguments."""

    name: str
    start: int
    end: int
    arguments: int = 0


@dataclass(frozen=True)
class TemplateRef:
    start: int  # index of `{{`
    end: int  # index after `}}`
    body: str  # the text between the braces
    # "inputs" | "ctx" | "secrets" | "run.outputs" | "run.id" | None (not a known reference)
    kind: str | None
    name: str | None = None  # input name, ctx key, secret name or node id
    name_start: int = 0
    name_end: int = 0
    edge: bool = False  # a `run.outputs["id"]` data edge
    filters: tuple[TemplateFilter, ...] = field(default=())

    @cached_property
    def engine_reads_head(self) -> bool:
        """Whether the engine's lexer recognises this reference's head as written: it takes no
        space around `.` and no `run.outputs.ID` dot form (those resolve to nothing and fail).
        Kept on the reference: an unchanged template's references are the same objects in the
        next version, so a keystroke elsewhere does not ask again."""
        return _engine_reads(self.body)


def _top_level(text: str, start: int, marks: re.Pattern[str]) -> Iterator[int]:
    """Indices from `start` of the characters `marks` finds outside `'…'`/`"…"` strings (where a
    backslash escapes the next character) and brackets/parentheses: the only places a `}}` or a
    filter's `|` counts. `marks` finds quotes, backslashes, brackets and what the caller seeks;
    the runs between them are passed over in one search."""
    depth = 0
    quote = ""
    escaped = -1  # the index of a character a backslash in a string escapes
    for mark in marks.finditer(text, start):
        index = mark.start()
        if index == escaped:
            continue
        ch = text[index]
        if quote:
            if ch == "\\":
                escaped = index + 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(depth - 1, 0)
        elif depth == 0:
            yield index


_CLOSING_MARKS = re.compile(r"[\"'\\\[\]()}]")
_SPLIT_MARKS = {delimiter: re.compile(rf"[\"'\\\[\](){delimiter}]") for delimiter in "|,"}


def _closing(text: str, start: int) -> int:
    """Index of the `}}` closing a reference whose body starts at `start`, or -1."""
    for index in _top_level(text, start, _CLOSING_MARKS):
        if text.startswith("}}", index):
            return index
    return -1


@text_cache(max_bytes=4 * 2**20)
def find_references(text: str) -> tuple[TemplateRef, ...]:
    refs: list[TemplateRef] = []
    position = text.find("{{")
    while position != -1:
        body_start = position + 2
        close = _closing(text, body_start)
        if close == -1:
            break
        refs.append(_parse(text, position, body_start, close))
        position = text.find("{{", close + 2)
    return tuple(refs)


def _split_top_level(text: str, delimiter: str) -> list[tuple[int, int]]:
    """(start, end) of each piece between top-level delimiters (`|` or `,`): outside quotes
    (with backslash escapes) and brackets/parentheses, as the engine's splitTopLevel."""
    pieces: list[tuple[int, int]] = []
    start = 0
    for index in _top_level(text, 0, _SPLIT_MARKS[delimiter]):
        if text[index] == delimiter:
            pieces.append((start, index))
            start = index + 1
    pieces.append((start, len(text)))
    return pieces


def _filters(body: str, offset: int) -> tuple[TemplateFilter, ...]:
    """Every filter after the head, as the engine parses it. Indices are shifted by `offset`
    (where the body starts in the template)."""
    result = []
    for start, end in _split_top_level(body, "|")[1:]:
        part = body[start:end]
        lead = len(part) - len(part.lstrip(JS_WHITESPACE))
        trimmed = part.strip(JS_WHITESPACE)
        match = _FILTER_CALL.fullmatch(trimmed)
        if match is None:
            name, name_end, arguments = trimmed, len(trimmed), 0
        else:
            name, name_end = match.group(1), match.end(1)
            raw = match.group(2) or ""
            arguments = sum(1 for a, b in _split_top_level(raw, ",")
                            if raw[a:b].strip(JS_WHITESPACE)) if raw.strip(JS_WHITESPACE) else 0
        first = offset + start + lead
        result.append(TemplateFilter(name, first, first + name_end, arguments))
    return tuple(result)


def _parse(text: str, start: int, body_start: int, close: int) -> TemplateRef:
    body = text[body_start:close]
    end = close + 2
    head = _HEAD.match(body)
    if head is None:
        return TemplateRef(start, end, body, None)
    filters = _filters(body, body_start)
    for group, kind in (("name", None), ("bracket", "run.outputs"), ("dotted", "run.outputs")):
        if head.group(group) is not None:
            return TemplateRef(
                start, end, body, kind or head.group("scope"), head.group(group),
                body_start + head.start(group), body_start + head.end(group),
                edge=group == "bracket", filters=filters,
            )
    return TemplateRef(start, end, body, "run.id", filters=filters)


@text_cache(max_bytes=2**20)
def _engine_reads(body: str) -> bool:
    head_end = _split_top_level(body, "|")[0][1]
    return _ENGINE_HEAD.match(body[:head_end].strip(JS_WHITESPACE)) is not None
