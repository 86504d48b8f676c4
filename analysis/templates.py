"""Find `{{ … }}` references in a template string (decoded scalar text).

Contract: `find_references(text)` returns every `{{ … }}` in order as a `TemplateRef` whose
indices are into `text` (map them to the document with `ScalarText.source_span`). A `}}` inside
quotes or brackets does not close a reference; an unclosed `{{` is plain text, as the engine treats
it. Recognised heads: `inputs.NAME`, `ctx.NAME`, `run.outputs["ID"]` (bracket-and-quote form: the
only one that adds a data edge), `run.outputs.ID` / `run.outputs['ID']` (recognised for
navigation, `edge` False), `run.id`, `secrets.NAME`. Filters: `| name` or `| name("arg")`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from analysis.naming import JS_WHITESPACE

KNOWN_FILTERS = ("read_file", "json", "length", "default")

_NAME = r"[A-Za-z0-9_-]+"
_HEAD = re.compile(
    r"\s*(?:"
    rf"(?P<scope>inputs|ctx|secrets)\s*\.\s*(?P<name>{_NAME})"
    r"|run\s*\.\s*outputs\s*\[\s*(?P<q>[\"'])(?P<bracket>[^\"'\\]*)(?P=q)\s*\]"
    r"|run\s*\.\s*outputs\s*\.\s*(?P<dotted>[A-Za-z_$][A-Za-z0-9_$]*)"
    r"|(?P<runid>run\s*\.\s*id)\b"
    r")"
)
_FILTER = re.compile(r"\|\s*(?P<filter>[A-Za-z_][A-Za-z0-9_]*)")
# The heads the engine's template lexer recognises (packages/core/src/interpolation/references.ts
# parseHead), matched on the trimmed text before the first top-level `|`.
_ENGINE_HEAD = re.compile(
    r"run\.outputs\[\s*([\"'])[^\"']*?\1\s*\]|run\.id(?![\w-])|(?:inputs|ctx|secrets)\.[A-Za-z0-9_-]+",
    re.ASCII,
)


@dataclass(frozen=True)
class TemplateFilter:
    name: str
    start: int
    end: int


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


def _unquoted(text: str, start: int) -> Iterator[int]:
    """Indices from `start` of the characters outside `'…'`/`"…"` strings (where a backslash
    escapes the next character): the only places a `}}` or a filter's `|` counts."""
    quote = ""
    index = start
    while index < len(text):
        ch = text[index]
        if quote:
            if ch == "\\":
                index += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        else:
            yield index
        index += 1


def _closing(text: str, start: int) -> int:
    """Index of the `}}` closing a reference whose body starts at `start`, or -1."""
    depth = 0
    for index in _unquoted(text, start):
        ch = text[index]
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(depth - 1, 0)
        elif ch == "}" and depth == 0 and text.startswith("}}", index):
            return index
    return -1


def find_references(text: str) -> list[TemplateRef]:
    refs: list[TemplateRef] = []
    position = text.find("{{")
    while position != -1:
        body_start = position + 2
        close = _closing(text, body_start)
        if close == -1:
            break
        refs.append(_parse(text, position, body_start, close))
        position = text.find("{{", close + 2)
    return refs


def _filters(body: str, start: int, offset: int) -> tuple[TemplateFilter, ...]:
    """Every `| name` after the head; a `|` inside a quoted argument (`default("a|b")`) is
    text. Indices are shifted by `offset` (where the body starts in the template)."""
    return tuple(
        TemplateFilter(
            match.group("filter"), offset + match.start("filter"), offset + match.end("filter")
        )
        for index in _unquoted(body, start)
        if body[index] == "|" and (match := _FILTER.match(body, index))
    )


def _parse(text: str, start: int, body_start: int, close: int) -> TemplateRef:
    body = text[body_start:close]
    end = close + 2
    head = _HEAD.match(body)
    if head is None:
        return TemplateRef(start, end, body, None)
    filters = _filters(body, head.end(), body_start)
    for group, kind in (("name", None), ("bracket", "run.outputs"), ("dotted", "run.outputs")):
        if head.group(group) is not None:
            return TemplateRef(
                start, end, body, kind or head.group("scope"), head.group(group),
                body_start + head.start(group), body_start + head.end(group),
                edge=group == "bracket", filters=filters,
            )
    return TemplateRef(start, end, body, "run.id", filters=filters)


def engine_reads_head(ref: TemplateRef) -> bool:
    """Whether the engine's lexer recognises this reference's head as written: it takes no
    space around `.` and no `run.outputs.ID` dot form (those resolve to nothing and fail)."""
    pipe = next((index for index in _unquoted(ref.body, 0) if ref.body[index] == "|"),
                len(ref.body))
    return _ENGINE_HEAD.match(ref.body[:pipe].strip(JS_WHITESPACE)) is not None
