"""The walk of a document against a schema, and its memory of what it found where.

Contract: `check_tree(schema, text, root, earlier)` checks the tree `root` of `text` against
`schema` (any spec of `analysis.schema.vocabulary`) and returns its findings in walk order and
this version's `SchemaMemo`. With `earlier` (the previous version's memo) the units whose text it
holds (a list, a run of `RUN` of its items, an item: see `Walk.unit`) are not checked again:
their findings, and their fixes' edits, are taken over at their new offsets. The result is the
same with or without `earlier`. A finding is of one of the walk's three rules (`UNKNOWN_KEY`,
`MISSING_FIELD`, and `INVALID_VALUE`, which the YAML reader reports too and so defines), in
document offsets, and becomes a `Diagnostic` through the document's `SourceText`
(`Finding.diagnostic`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from analysis.diagnostics import Diagnostic, Edit, Fix, Severity
from analysis.document.source import SourceText
from analysis.document.yaml_nodes import YNode
from analysis.naming import Suggestions

UNKNOWN_KEY = "unknown-key"
MISSING_FIELD = "missing-field"


class FoundFix(NamedTuple):
    """A fix as the walk finds it: its edits are (start, end, new text) in the offsets of its
    finding, so that they move with it."""

    title: str
    edits: tuple[tuple[int, int, str], ...]
    safe: bool

    def moved(self, delta: int) -> FoundFix:
        return self._replace(edits=tuple((start + delta, end + delta, new_text)
                                         for start, end, new_text in self.edits))


class Finding(NamedTuple):
    rule: str
    severity: Severity
    start: int
    end: int
    message: str
    data: dict[str, Any] | None
    fixes: tuple[FoundFix, ...] = ()

    def moved(self, delta: int) -> Finding:
        """This finding `delta` characters on, with its own copy of `data` (a diagnostic's
        data is its own to change)."""
        return Finding(self.rule, self.severity, self.start + delta, self.end + delta,
                       self.message, dict(self.data) if self.data else None,
                       tuple(fix.moved(delta) for fix in self.fixes))

    def diagnostic(self, source: SourceText) -> Diagnostic:
        return Diagnostic(
            source.range(self.start, self.end), self.severity, self.rule, self.message, self.data,
            fixes=tuple(Fix(fix.title, tuple(Edit(source.range(start, end), new_text)
                                             for start, end, new_text in fix.edits), fix.safe)
                        for fix in self.fixes))


# A unit's path (which decides its spec) and its text from the start of its first line (what
# precedes it on the line decides how it nests: an indentation indicator `|2` counts from there).
UnitKey = tuple[str, str]


class Remembered(NamedTuple):
    """A unit's findings, with offsets relative to its start, and every unit checked inside it
    (a list's runs and items) with its key, carried over with it when it is found again."""

    findings: tuple[Finding, ...]
    inner: tuple[tuple[UnitKey, Remembered], ...]


@dataclass(frozen=True)
class SchemaMemo:
    """What one version's walk found in each unit (a list, each run of `RUN` of its items, each
    item), by the unit's text: the next version checks again only the units whose text changed,
    and looks up about `RUN` + items / `RUN` of them in a list of mappings.

    An `AnalysisResult` holds its own version's memo (taken over by a version whose YAML does
    not read), and a walk looks only at the previous one: it holds each unit's text (about
    three times the lists' text), findings and keys — memory bounded by the document it was
    walked for, freed with the result. `prologue`, the text before the document's root
    (directives such as `%TAG`, which decide what a tag in a unit means), must be the same for
    its entries to apply."""

    prologue: str
    units: dict[UnitKey, Remembered]


class Checks(Protocol):
    """What the walk asks of a schema: any spec of the vocabulary."""

    def check(self, walk: Walk, node: YNode, path: str) -> None: ...


class Walk:
    def __init__(self, text: str, root: YNode, earlier: SchemaMemo | None = None) -> None:
        self.text = text
        self.out: list[Finding] = []
        self.prologue = text[:root.start]
        self.earlier = earlier.units if earlier is not None and \
            earlier.prologue == self.prologue else {}
        self.units: dict[UnitKey, Remembered] = {}
        # the units checked in the one being checked, with their own inner units
        self._inner: list[tuple[UnitKey, Remembered]] = []
        self._suggestions: dict[tuple[str, ...], Suggestions] = {}

    def memo(self) -> SchemaMemo:
        return SchemaMemo(self.prologue, self.units)

    def report(self, rule: str, node: YNode, message: str, fixes: tuple[FoundFix, ...] = (),
               /, **data: Any) -> None:
        self.out.append(Finding(rule, Severity.ERROR, node.start, node.end, message,
                                data or None, fixes))

    def warn(self, rule: str, node: YNode, message: str) -> None:
        """A value the engine loads but that can never work as meant."""
        self.out.append(Finding(rule, Severity.WARNING, node.start, node.end, message, None))

    def suggestions(self, names: tuple[str, ...]) -> Suggestions:
        """The "did you mean" among `names` (a mapping's keys, an enum), one per collection per
        walk: a misspelling repeated in every item is compared once."""
        found = self._suggestions.get(names)
        if found is None:
            found = self._suggestions[names] = Suggestions(names)
        return found

    def unit(self, start: int, end: int, path: str, check: Callable[[], None]) -> None:
        """`check()`, which walks the text from `start` to `end` under `path`, or what the
        previous version's walk found in the same text under the same path. A unit's check
        reads nothing outside it (aliases, whose span is their anchor's, are never checked), its
        text from its line's start decides its nodes, and its messages name the path."""
        text = self.text
        key = (path, text[text.rfind("\n", 0, start) + 1:end])
        known = self.earlier.get(key)
        if known is None:
            outer, outer_inner = self.out, self._inner
            self.out, self._inner = [], []
            check()
            known = Remembered(tuple(finding.moved(-start) for finding in self.out),
                               tuple(self._inner))
            self.out, self._inner = outer, outer_inner
        else:
            self.units.update(known.inner)  # this version's too: the next edit may change one
        self.units[key] = known
        self._inner.append((key, known))
        self._inner.extend(known.inner)
        if known.findings:
            self.out.extend(finding.moved(start) for finding in known.findings)


def check_tree(schema: Checks, text: str, root: YNode, earlier: SchemaMemo | None = None
         ) -> tuple[list[Finding], SchemaMemo]:
    """The findings of `root` (the tree of `text`) against `schema`, in walk order, and the memo
    of this walk; units whose text `earlier` holds are not checked again."""
    walker = Walk(text, root, earlier)
    schema.check(walker, root, "")
    return walker.out, walker.memo()


def validate_file(schema: Checks, source: SourceText, root: YNode | None,
                  earlier: SchemaMemo | None, empty: str, first_field: str
                  ) -> tuple[list[Diagnostic], SchemaMemo | None]:
    """The diagnostics of the file `source` (read as `root`) against `schema`, and the walk's memo
    (`earlier`, the previous version's, when there was nothing to walk). A file with no document
    is one `missing-field` error at its start: `empty` says what it needs, `first_field` first."""
    if root is None:
        finding = Finding(MISSING_FIELD, Severity.ERROR, 0, 0, empty, {"field": first_field})
        return [finding.diagnostic(source)], earlier
    findings, memo = check_tree(schema, source.text, root, earlier)
    return [finding.diagnostic(source) for finding in findings], memo
