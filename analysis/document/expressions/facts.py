"""What one expression reads and uses: `run.outputs` reads, scope reads, forbidden globals.

`analyze_expression(source)` works on ONE decoded expression string; every span is a pair of
code-point offsets into that string. The syntax-tree scans run only on a tree without errors (a
broken tree's shape is a guess, and a guess could invent a read); the engine-scan emulation and
the `{{` search run on any text, because the engine's scan and the author's mistake do too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from tree_sitter import Node

from analysis.document.expressions.engine_scan import EngineRead, engine_output_reads
from analysis.document.expressions.evaluation import always_evaluated
from analysis.document.expressions.js_text import (
    decode_identifier,
    decode_string_body,
)
from analysis.document.expressions.parsing import ParsedExpression
from analysis.document.expressions.scope import ScopedWalk
from analysis.document.expressions.template_braces import template_braces
from analysis.document.text_cache import text_cache

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

# Where the tree scan may have something to say: each place a name of interest or a keyword the
# sandbox lacks starts (overlaps included), and each backslash (an escaped identifier such as
# `r\u0075n`). A superset of the identifiers and keywords the scan acts on: an occurrence inside a
# string, a comment or a longer name only leads the walk to nodes it passes over. A search for
# each over the bytes costs under half of one pattern of them all (whose lookahead is tried at
# every byte), itself under half of a tree query and a look at every identifier's text.
_CANDIDATE_TEXTS = tuple(
    name.encode() for name in sorted(_INTERESTING | {"async", "await", "import", "\\"})
)


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
    # Whether the expression always goes on to read a property of the value (or call it):
    # `run.outputs.x.y` where no `&&`, `?:`, `if`, loop, `try` or function makes it conditional.
    # A syntax tree says so; a read only the engine's scan sees never claims it.
    dereferenced: bool = False
    # The literal member reads that follow, in order (`.topic.length`): what the typed checks
    # follow through the producer's output type. Empty for a read only the engine's scan sees.
    members: tuple[MemberRead, ...] = ()


@dataclass(frozen=True, slots=True)
class MemberRead:
    """One literal `.key` / `["key"]` read after `run.outputs[<node_id>]` (or after another)."""

    key_name: str
    key: Span
    # Whether a null or undefined value it is read of throws a TypeError (no `?.`) on every
    # evaluation of the expression (not only on some paths: `&&`, `?:`, a function).
    throws: bool
    # Whether `?.` reads it: an optional chain, so a nullish base gives undefined
    optional: bool


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
    # The `branches` uses that throw a TypeError where it is null (outside a merge_fn): a member
    # read, index or call without `?.`, an array/argument spread, `for … of`, an assignment.
    branches_null_derefs: tuple[Span, ...]
    template_braces: tuple[Span, ...]  # `{{ … }}` in code position (never in strings/comments)


# Each is handed every expression parsed for its facts (a cache miss), so that another reading
# of the same tree is made from it rather than from a second parse: analysis.types.infer
# registers its compiler (it is layered above this module). An observer must not raise.
PARSE_OBSERVERS: list[Callable[[ParsedExpression], object]] = []


@text_cache(max_bytes=32 * 2**20)  # across versions: see analysis.document.text_cache
def analyze_expression(source: str) -> ExpressionFacts:
    """Every fact the rules and the server need about one expression. Never raises on any text."""
    parsed = ParsedExpression(source)
    for observe in PARSE_OBSERVERS:
        observe(parsed)
    engine_reads = engine_output_reads(source)
    braces = tuple(Span(start, end) for start, end in template_braces(parsed))
    if parsed.broken:
        return ExpressionFacts(
            source=source,
            broken=True,
            output_reads=tuple(_engine_only(read) for read in engine_reads),
            scope_reads=(),
            whole_scope_reads=(),
            forbidden=(),
            branches_uses=(),
            branches_null_derefs=(),
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
        branches_null_derefs=tuple(scan.branches_null_derefs),
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
            else OutputRead(read.node_id, read.key, read.access, read.form, ReadGrade.ENGINE,
                            read.dereferenced, read.members)
        )
    graded.extend(_engine_only(read) for read in unmatched.values())
    graded.sort(key=lambda read: read.key.start)
    return tuple(graded)


def _candidates(parsed: ParsedExpression) -> list[int]:
    """Bytes inside every node the scan must visit (sorted), so the walk can skip every other
    subtree."""
    data = parsed.data
    found: list[int] = []
    for text in _CANDIDATE_TEXTS:
        at = data.find(text)
        while at != -1:
            found.append(at)
            at = data.find(text, at + 1)
    return sorted(set(found))  # each start once, as where one text is a prefix of another


def _outer(path: list[Node], index: int) -> tuple[int, int | None]:
    """For `path[index]`: the index of the node with any parentheses around it, and the index of
    the parent beyond them (None at the root)."""
    while index > 0 and path[index - 1].type == "parenthesized_expression":
        index -= 1
    return index, (index - 1 if index > 0 else None)


# Leaves whose text is never code: no need to walk into them.
_OPAQUE = frozenset({"string", "comment", "html_comment", "regex", "number"})


class _TreeScan:
    """One walk over a tree without errors, collecting the free references of interest."""

    def __init__(self, parsed: ParsedExpression) -> None:
        self.parsed = parsed
        self.output_reads: list[OutputRead] = []
        self.scope_reads: list[ScopeRead] = []
        self.whole_scope_reads: list[WholeScopeRead] = []
        self.forbidden: list[ForbiddenUse] = []
        self.branches_uses: list[Span] = []
        self.branches_null_derefs: list[Span] = []
        self._always: dict[int, bool] = {}  # path node id → always_evaluated's answer
        # A function of `parsed`, not a method: a walk holding a bound method of this scan
        # would make the two a cycle, garbage only the collector frees (with the parse tree).
        self._walk = ScopedWalk(
            parsed.root, lambda node: decode_identifier(parsed.text(node)), _candidates(parsed)
        )
        self.path = self._walk.path
        walk = self._walk
        for node in walk:
            kind = walk.kind
            if kind in ("identifier", "shorthand_property_identifier"):
                self._reference(node)
            elif kind in ("async", "await") or (kind == "import" and node.is_named):
                self.forbidden.append(ForbiddenUse(kind, self._span(node)))
            elif kind in _OPAQUE:
                self._walk.skip_children()

    def _name_of(self, node: Node) -> str | None:
        return decode_identifier(self.parsed.text(node))

    def _span(self, node: Node) -> Span:
        return Span(self.parsed.start(node), self.parsed.end(node))

    def _reference(self, node: Node) -> None:
        name = self._name_of(node)
        if name not in _INTERESTING or not self._walk.is_free(name):
            return
        if name == "branches":
            self.branches_uses.append(self._span(node))
            if node.type == "identifier" and self._throws_on_null(len(self.path) - 1):
                self.branches_null_derefs.append(self._span(node))
            return
        if node.type == "shorthand_property_identifier":  # `{ Date }`: a use, but no member read
            if name in FORBIDDEN_GLOBALS:
                self.forbidden.append(ForbiddenUse(name, self._span(node)))
            return
        index = len(self.path) - 1
        if name in FORBIDDEN_GLOBALS:
            if not self._is_typeof_operand(index):
                self.forbidden.append(ForbiddenUse(name, self._span(node)))
        elif name == "run":
            self._run_read(index)
        elif name in ("inputs", "ctx"):
            self._scope_read(index, name)
        else:
            self._global_member(index, name)

    def _throws_on_null(self, index: int) -> bool:
        """Whether evaluating the value at `path[index]` as null throws a TypeError where it is
        used: `x.a`, `x[0]`, `x()` (not with `?.`), `[...x]`, `f(...x)`, `for (… of x)`,
        `x = …`, `x += …`, `x++` (a const binding). `typeof x`, `x ?? d`, `{...x}` are fine."""
        outer, parent_index = _outer(self.path, index)
        if parent_index is None:
            return False
        parent, child = self.path[parent_index], self.path[outer]
        kind = parent.type
        if kind in ("member_expression", "subscript_expression", "call_expression"):
            field = "function" if kind == "call_expression" else "object"
            optional = any(c.type == "optional_chain" for c in parent.children)
            return parent.child_by_field_name(field) == child and not optional
        if kind == "spread_element":
            grand = self.path[parent_index - 1].type if parent_index > 0 else ""
            return grand in ("array", "arguments")
        if kind == "for_in_statement":
            is_of = any(c.type == "of" for c in parent.children)
            return is_of and parent.child_by_field_name("right") == child
        if kind in ("assignment_expression", "augmented_assignment_expression"):
            return parent.child_by_field_name("left") == child
        return kind == "update_expression"

    def _member(self, base: int) -> tuple[str, Span, ReadForm, int] | None:
        """`base.key`, `base["key"]` or `base[`key`]` (parentheses allowed around base) for the
        path node at index `base`: (key, key span, form, path index of the access); None for a
        computed or absent key."""
        outer, access_index = _outer(self.path, base)
        if access_index is None:
            return None
        access = self.path[access_index]
        if access.child_by_field_name("object") != self.path[outer]:
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
        return key, span, form, access_index

    def _access_span(self, base: int, access: int) -> Span:
        return Span(self.parsed.start(self.path[base]), self.parsed.end(self.path[access]))

    def _run_read(self, run: int) -> None:
        outputs = self._member(run)
        if outputs is None or outputs[0] != "outputs":
            return
        read = self._member(outputs[3])
        if read is None:
            return
        node_id, key, form, access = read
        if self._is_write_target(access):
            return
        span = self._access_span(run, access)
        dereferenced = self._throws_on_null(access) and always_evaluated(
            self.path, access, self._always)
        self.output_reads.append(OutputRead(node_id, key, span, form, ReadGrade.SYNTAX_TREE,
                                            dereferenced, self._members_after(access)))

    def _members_after(self, base: int) -> tuple[MemberRead, ...]:
        """The literal member reads chained on the value at `path[base]`, up to the first
        computed key, call argument or write."""
        members: list[MemberRead] = []
        while (member := self._member(base)) is not None and not self._is_write_target(
                member[3]):
            key_name, key, _, access = member
            throws = self._throws_on_null(base) and always_evaluated(
                self.path, base, self._always)
            optional = any(child.type == "optional_chain"
                           for child in self.path[access].children)
            members.append(MemberRead(key_name, key, throws, optional))
            base = access
        return tuple(members)

    def _scope_read(self, binding: int, name: str) -> None:
        read = self._member(binding)
        if read is None:
            if self._reads_every_value(binding):
                self.whole_scope_reads.append(WholeScopeRead(name, self._span(self.path[binding])))
            return
        key_name, key, _, access = read
        if self._is_write_target(access):
            return
        self.scope_reads.append(ScopeRead(name, key_name, key, self._access_span(binding, access)))

    def _reads_every_value(self, binding: int) -> bool:
        outer, parent_index = _outer(self.path, binding)
        if parent_index is None:
            return False
        parent = self.path[parent_index]
        if parent.type == "spread_element":
            return parent_index > 0 and self.path[parent_index - 1].type == "object"
        if parent.type != "arguments" or parent_index == 0:
            return False
        callee = self.path[parent_index - 1].child_by_field_name("function")
        if callee is None or callee.type != "member_expression":
            return False
        callee_object = callee.child_by_field_name("object")
        callee_property = callee.child_by_field_name("property")
        if callee_object is None or callee_property is None or callee_object.type != "identifier":
            return False
        owner = self._name_of(callee_object)
        method = self._name_of(callee_property)
        arguments = parent.named_children
        value = self.path[outer]
        # No scope lies between the call and its argument: the walk's answer holds for `owner`.
        if owner is None or not self._walk.is_free(owner):
            return False
        if owner == "JSON":  # a replacer other than null / undefined may filter the keys
            return (
                method == "stringify"
                and arguments[:1] == [value]
                and (len(arguments) == 1 or arguments[1].type in ("null", "undefined"))
            )
        if owner == "Object" and method in ("values", "entries"):
            return bool(arguments) and arguments[0] == value
        return owner == "Object" and method == "assign" and value in arguments[1:]

    def _global_member(self, base: int, name: str) -> None:
        """`Math.random` and `globalThis.Date`-style reads of a forbidden global."""
        read = self._member(base)
        if read is None:
            return
        key_name, _, _, access = read
        if self._is_typeof_operand(access):
            return
        span = self._access_span(base, access)
        if name == "Math" and key_name == "random":
            self.forbidden.append(ForbiddenUse("Math.random", span))
        elif name == "globalThis" and key_name in FORBIDDEN_GLOBALS:
            self.forbidden.append(ForbiddenUse(key_name, span))

    def _is_typeof_operand(self, index: int) -> bool:
        """`typeof Date` is legal and safe when Date is absent: it is not a use worth reporting."""
        _, parent_index = _outer(self.path, index)
        if parent_index is None or self.path[parent_index].type != "unary_expression":
            return False
        operator = self.path[parent_index].child_by_field_name("operator")
        return operator is not None and operator.type == "typeof"

    def _is_write_target(self, access: int) -> bool:
        """`run.outputs.x = …` and `delete run.outputs.x` touch the key without reading it."""
        outer, parent_index = _outer(self.path, access)
        if parent_index is None:
            return False
        parent = self.path[parent_index]
        if parent.type == "assignment_expression":
            return parent.child_by_field_name("left") == self.path[outer]
        if parent.type == "unary_expression":
            operator = parent.child_by_field_name("operator")
            return operator is not None and operator.type == "delete"
        return False
