"""What one expression reads and uses: `run.outputs` reads, scope reads, forbidden globals.

`analyze_expression(source)` works on ONE decoded expression string; every span is a pair of
code-point offsets into that string. The syntax-tree scans run only on a tree without errors (a
broken tree's shape is a guess, and a guess could invent a read); the engine-scan emulation and
the `{{` search run on any text, because the engine's scan and the author's mistake do too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import pairwise

from tree_sitter import Node, QueryCursor

from analysis.expressions.engine_scan import EngineRead, engine_output_reads
from analysis.expressions.js_text import (
    decode_identifier,
    decode_string_body,
    inside_literal_or_comment,
)
from analysis.expressions.parsing import ParsedExpression, query
from analysis.expressions.scope import ScopeResolver

# The bindings the engine injects into every expression's scope (`branches`: merge_fn only).
SCOPE_BINDINGS = frozenset({"inputs", "ctx", "run", "branches"})

# Globals the sandbox does not create (expression-sandbox-spec.md, "Language surface").
FORBIDDEN_GLOBALS = frozenset(
    {
        "Date",
        "Promise",
        "setTimeout",
        "setInterval",
        "queueMicrotask",
        "performance",
        "crypto",
        "Proxy",
        "WeakRef",
        "FinalizationRegistry",
        "Intl",
        "require",
        "process",
        "fetch",
    }
)
_INTERESTING = SCOPE_BINDINGS | FORBIDDEN_GLOBALS | {"Math", "globalThis"}

_QUERY = query(
    """
    [(identifier) (shorthand_property_identifier)] @reference
    ["async" "await"] @keyword
    (import) @import
    """
)
_BRACE_QUERY = query('"{" @brace')


@dataclass(frozen=True, slots=True)
class Span:
    """Code-point offsets into the expression string, end exclusive."""

    start: int
    end: int


class ReadForm(StrEnum):
    DOT = "dot"  # run.outputs.classify
    BRACKET = "bracket"  # run.outputs["classify"]
    TEMPLATE = "template"  # run.outputs[`classify`] (no substitutions)


class ReadGrade(StrEnum):
    ENGINE = "engine"  # the engine's own scan sees it: the engine refuses the workflow
    SYNTAX_TREE = "syntax-tree"  # only a syntax tree sees it: accepted, `undefined` at run time


@dataclass(frozen=True, slots=True)
class OutputRead:
    """A literal read of `run.outputs[<node_id>]` through the free `run`."""

    node_id: str
    key: Span  # the id's characters (inside the quotes for a bracket key)
    access: Span  # from `run` to the end of the key access
    form: ReadForm
    grade: ReadGrade


@dataclass(frozen=True, slots=True)
class ScopeRead:
    """A literal read of one key of the free `inputs` or `ctx` binding."""

    binding: str
    key_name: str
    key: Span
    access: Span


@dataclass(frozen=True, slots=True)
class WholeScopeRead:
    """`inputs` / `ctx` handed whole to something that reads every value: `JSON.stringify(ctx)`,
    `Object.values(inputs)`, `Object.entries(…)`, `Object.assign({}, …)`, `{ ...inputs }`."""

    binding: str
    span: Span  # the binding's name


@dataclass(frozen=True, slots=True)
class ForbiddenUse:
    """A use of something the sandbox does not have: a global name, `Math.random`, `async`,
    `await` or `import`."""

    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class ExpressionFacts:
    source: str
    broken: bool  # tree-sitter found errors: only the engine scan and `{{` search ran
    output_reads: tuple[OutputRead, ...]
    scope_reads: tuple[ScopeRead, ...]
    whole_scope_reads: tuple[WholeScopeRead, ...]
    forbidden: tuple[ForbiddenUse, ...]
    branches_uses: tuple[Span, ...]
    template_braces: tuple[Span, ...]  # `{{ … }}` in code position (never in strings/comments)


@lru_cache(maxsize=4096)
def analyze_expression(source: str) -> ExpressionFacts:
    """Every fact the rules and the server need about one expression. Never raises on any text."""
    parsed = ParsedExpression(source)
    engine_reads = engine_output_reads(source)
    braces = _template_braces(parsed)
    if parsed.broken:
        return ExpressionFacts(
            source=source,
            broken=True,
            output_reads=tuple(_engine_only(read) for read in engine_reads),
            scope_reads=(),
            whole_scope_reads=(),
            forbidden=(),
            branches_uses=(),
            template_braces=braces,
        )
    scan = _TreeScan(parsed)
    return ExpressionFacts(
        source=source,
        broken=False,
        output_reads=_graded(scan.output_reads, engine_reads),
        scope_reads=tuple(scan.scope_reads),
        whole_scope_reads=tuple(scan.whole_scope_reads),
        forbidden=tuple(sorted(scan.forbidden, key=lambda use: use.span.start)),
        branches_uses=tuple(scan.branches_uses),
        template_braces=braces,
    )


def _engine_only(read: EngineRead) -> OutputRead:
    return OutputRead(
        node_id=read.node_id,
        key=Span(read.key_start, read.key_end),
        access=Span(read.access_start, read.access_end),
        form=ReadForm(read.form),
        grade=ReadGrade.ENGINE,
    )


def _graded(
    tree_reads: list[OutputRead], engine_reads: tuple[EngineRead, ...]
) -> tuple[OutputRead, ...]:
    """Tree reads the engine also sees are errors; engine reads the tree does not confirm (only
    through the engine's own quirks) are still errors, because the engine still refuses them."""
    unmatched = {(read.key_start, read.node_id): read for read in engine_reads}
    graded = []
    for read in tree_reads:
        engine = unmatched.pop((read.key.start, read.node_id), None)
        graded.append(
            read
            if engine is None
            else OutputRead(read.node_id, read.key, read.access, read.form, ReadGrade.ENGINE)
        )
    graded.extend(_engine_only(read) for read in unmatched.values())
    graded.sort(key=lambda read: read.key.start)
    return tuple(graded)


def _template_braces(parsed: ParsedExpression) -> tuple[Span, ...]:
    if "{{" not in parsed.source:
        return ()
    braces = sorted(
        (
            node
            for node in QueryCursor(_BRACE_QUERY).captures(parsed.root).get("brace", [])
            if parsed.in_expression(node)
        ),
        key=lambda node: node.start_byte,
    )
    spans: list[Span] = []
    for first, second in pairwise(braces):
        if first.end_byte != second.start_byte or (spans and spans[-1].end > parsed.start(first)):
            continue
        start = parsed.start(first)
        if inside_literal_or_comment(parsed.source, start):
            continue  # tree-sitter recovered from an unterminated literal by lexing its text
        close = parsed.source.find("}}", start + 2)
        spans.append(Span(start, close + 2 if close != -1 else start + 2))
    return tuple(spans)


def _outer(node: Node) -> tuple[Node, Node | None]:
    """The node with any parentheses around it, and the parent beyond them."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    return node, parent


class _TreeScan:
    """One pass over the free references of interest in a tree without errors."""

    def __init__(self, parsed: ParsedExpression) -> None:
        self.parsed = parsed
        self.output_reads: list[OutputRead] = []
        self.scope_reads: list[ScopeRead] = []
        self.whole_scope_reads: list[WholeScopeRead] = []
        self.forbidden: list[ForbiddenUse] = []
        self.branches_uses: list[Span] = []
        self._scopes = ScopeResolver(self._name_of)
        captures = QueryCursor(_QUERY).captures(parsed.root)
        # Capture lists are not in source order; the answers are.
        for node in sorted(captures.get("reference", []), key=lambda node: node.start_byte):
            self._reference(node)
        for node in captures.get("keyword", []) + captures.get("import", []):
            self.forbidden.append(ForbiddenUse(parsed.text(node), self._span(node)))

    def _name_of(self, node: Node) -> str | None:
        return decode_identifier(self.parsed.text(node))

    def _span(self, node: Node) -> Span:
        return Span(self.parsed.start(node), self.parsed.end(node))

    def _reference(self, node: Node) -> None:
        name = self._name_of(node)
        if name not in _INTERESTING or not self._scopes.is_free(node, name):
            return
        if name == "branches":
            self.branches_uses.append(self._span(node))
            return
        if node.type == "shorthand_property_identifier":  # `{ Date }`: a use, but no member read
            if name in FORBIDDEN_GLOBALS:
                self.forbidden.append(ForbiddenUse(name, self._span(node)))
            return
        if name in FORBIDDEN_GLOBALS:
            outer, parent = _outer(node)
            if not _is_typeof_operand(outer, parent):
                self.forbidden.append(ForbiddenUse(name, self._span(node)))
        elif name == "run":
            self._run_read(node)
        elif name in ("inputs", "ctx"):
            self._scope_read(node, name)
        else:
            self._global_member(node, name)

    def _member(self, base: Node) -> tuple[str, Span, ReadForm, Node] | None:
        """`base.key`, `base["key"]` or `base[`key`]` (parentheses allowed around base), as
        (key, key span, form, access node); None for a computed or absent key."""
        outer, access = _outer(base)
        if access is None or access.child_by_field_name("object") != outer:
            return None
        parsed = self.parsed
        if access.type == "member_expression":
            key_node = access.child_by_field_name("property")
            if key_node is None or key_node.type != "property_identifier":
                return None
            key = self._name_of(key_node)
            span = self._span(key_node)
            form = ReadForm.DOT
        elif access.type == "subscript_expression":
            key_node = access.child_by_field_name("index")
            if key_node is None:
                return None
            if key_node.type == "string":
                form = ReadForm.BRACKET
            elif key_node.type == "template_string" and not any(
                child.type == "template_substitution" for child in key_node.named_children
            ):
                form = ReadForm.TEMPLATE
            else:
                return None
            span = Span(parsed.start(key_node) + 1, parsed.end(key_node) - 1)
            body = parsed.source[span.start : span.end]
            key = decode_string_body(body, template=form is ReadForm.TEMPLATE)
        else:
            return None
        if not key:
            return None
        return key, span, form, access

    def _run_read(self, run: Node) -> None:
        outputs = self._member(run)
        if outputs is None or outputs[0] != "outputs":
            return
        read = self._member(outputs[3])
        if read is None:
            return
        node_id, key, form, access = read
        if _is_write_target(access):
            return
        span = Span(self.parsed.start(run), self.parsed.end(access))
        self.output_reads.append(OutputRead(node_id, key, span, form, ReadGrade.SYNTAX_TREE))

    def _scope_read(self, binding: Node, name: str) -> None:
        read = self._member(binding)
        if read is None:
            if self._reads_every_value(binding):
                self.whole_scope_reads.append(WholeScopeRead(name, self._span(binding)))
            return
        if _is_write_target(read[3]):
            return
        key_name, key, _, access = read
        span = Span(self.parsed.start(binding), self.parsed.end(access))
        self.scope_reads.append(ScopeRead(name, key_name, key, span))

    def _reads_every_value(self, binding: Node) -> bool:
        outer, parent = _outer(binding)
        if parent is None:
            return False
        if parent.type == "spread_element":
            container = parent.parent
            return container is not None and container.type == "object"
        if parent.type != "arguments":
            return False
        call = parent.parent
        callee = call.child_by_field_name("function") if call is not None else None
        if callee is None or callee.type != "member_expression":
            return False
        callee_object = callee.child_by_field_name("object")
        callee_property = callee.child_by_field_name("property")
        if callee_object is None or callee_property is None or callee_object.type != "identifier":
            return False
        owner = self._name_of(callee_object)
        method = self._name_of(callee_property)
        arguments = parent.named_children
        if owner is None or not self._scopes.is_free(callee_object, owner):
            return False
        if owner == "JSON":  # a replacer other than null / undefined may filter the keys
            return (
                method == "stringify"
                and arguments[:1] == [outer]
                and (len(arguments) == 1 or arguments[1].type in ("null", "undefined"))
            )
        if owner == "Object" and method in ("values", "entries"):
            return bool(arguments) and arguments[0] == outer
        return owner == "Object" and method == "assign" and outer in arguments[1:]

    def _global_member(self, base: Node, name: str) -> None:
        """`Math.random` and `globalThis.Date`-style reads of a forbidden global."""
        read = self._member(base)
        if read is None:
            return
        key_name, _, _, access = read
        outer, parent = _outer(access)
        if _is_typeof_operand(outer, parent):
            return
        span = Span(self.parsed.start(base), self.parsed.end(access))
        if name == "Math" and key_name == "random":
            self.forbidden.append(ForbiddenUse("Math.random", span))
        elif name == "globalThis" and key_name in FORBIDDEN_GLOBALS:
            self.forbidden.append(ForbiddenUse(key_name, span))


def _is_typeof_operand(node: Node, parent: Node | None) -> bool:
    """`typeof Date` is legal and safe when Date is absent: it is not a use worth reporting."""
    if parent is None or parent.type != "unary_expression":
        return False
    operator = parent.child_by_field_name("operator")
    return operator is not None and operator.type == "typeof"


def _is_write_target(access: Node) -> bool:
    """`run.outputs.x = …` and `delete run.outputs.x` touch the key without reading it."""
    outer, parent = _outer(access)
    if parent is None:
        return False
    if parent.type == "assignment_expression":
        return parent.child_by_field_name("left") == outer
    if parent.type == "unary_expression":
        operator = parent.child_by_field_name("operator")
        return operator is not None and operator.type == "delete"
    return False
