"""An expression compiled once per text into the small tree inference evaluates.

Inference runs on every analysis for every transform and merge expression, with new root types
each time; reading the tree-sitter tree (node objects made on each access, identifiers decoded
from the text) was most of its cost. `compile_expression` does that reading once: literals
become their types, names are decoded, keys resolved, and what inference does not follow
becomes `Const(AnyValue())`. An expression that may rewrite a built-in
(`analysis.types.purity`), or a tree that is broken, compiles to unknown as a whole. A compile
that reached every node of the tree has seen all that purity asks (`CompiledSurface`), so only
the other compiles pay for purity's own scan of the tree (a third of compiling's cost).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from analysis.document.expressions.js_text import decode_identifier, decode_string_body
from analysis.document.expressions.parsing import LANGUAGE, ParsedExpression
from analysis.schema.value_types import (
    AnyValue,
    Literals,
    NullType,
    StringType,
    ValueType,
)
from analysis.types.literals import CONVERSION_KEYS, number_value
from analysis.types.purity import (
    CompiledSurface,
    is_handle,
    may_rewrite_builtins,
    surface_may_rewrite_builtins,
)

# Deeper than this, the rest of an expression is unknown (compiling recurses).
MAX_DEPTH = 120
_CHAINS = frozenset({"member_expression", "subscript_expression", "call_expression"})
def _field_id(name: str) -> int:
    found = LANGUAGE.field_id_for_name(name)
    if found is None:
        raise ValueError(f"tree-sitter-javascript has no field {name!r}")
    return found


# The fields the compiler reads.
_FIELD_IDS = {name: _field_id(name) for name in (
    "alternative", "argument", "arguments", "body", "condition", "consequence", "function",
    "index", "key", "left", "name", "object", "operator", "optional_chain", "parameter",
    "parameters", "property", "right", "value")}
# What ParsedExpression adds around the expression's bytes: "(\n" before, "\n)" after.
_WRAPPING = "(\n\n)"


@dataclass(frozen=True, slots=True)
class Const:
    type: ValueType


UNKNOWN = Const(AnyValue())


@dataclass(frozen=True, slots=True)
class Name:
    name: str


@dataclass(frozen=True, slots=True)
class Read:
    """`obj.key`, `obj[index]` (`key` when the index is a literal, else the `index` to
    evaluate), `?.` when `optional`; `chained`: `obj` is a link of the same chain, which an
    earlier `?.` cuts short with this one."""

    obj: Expr
    key: str | int | None
    index: Expr | None
    optional: bool
    chained: bool


@dataclass(frozen=True, slots=True)
class Arrow:
    """An arrow function with plain parameters whose body is an expression, or a block of
    `const`/`let` declarations and one `return` (`bindings` in order, then `body`); `body` None
    for one inference does not follow (other statements, a pattern, `async`)."""

    parameters: tuple[str, ...]
    body: Expr | None
    bindings: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class Spread:
    value: Expr


@dataclass(frozen=True, slots=True)
class Call:
    """`name(…)` (a global function: `receiver` None, `namespace` None), `Namespace.name(…)`,
    or `receiver.name(…)` (`optional` for `receiver?.name(…)`)."""

    name: str
    namespace: str | None
    receiver: Expr | None
    arguments: tuple[Expr | Arrow | Spread, ...]
    optional: bool
    chained: bool


@dataclass(frozen=True, slots=True)
class Template:
    substitutions: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Ternary:
    condition: Expr
    consequence: Expr
    alternative: Expr


@dataclass(frozen=True, slots=True)
class Binary:
    operator: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Unary:
    operator: str
    argument: Expr


@dataclass(frozen=True, slots=True)
class Sequence:
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ArrayLiteral:
    items: tuple[Expr | Spread, ...]


@dataclass(frozen=True, slots=True)
class ObjectLiteral:
    """Members in order: `(key, value)` pairs and spreads."""

    members: tuple[tuple[str, Expr] | Spread, ...]


Expr = (Const | Name | Read | Call | Arrow | Template | Ternary | Binary | Unary | Sequence
        | ArrayLiteral | ObjectLiteral)


def compile_expression(parsed: ParsedExpression) -> Expr:
    """The expression's tree for inference (unknown as a whole when it cannot be trusted)."""
    if parsed.broken:
        return UNKNOWN
    compiler = _Compiler(parsed)
    compiled = compiler.expression(parsed.root.named_children[0].named_children[0])
    surface = compiler.surface
    rewrites = surface_may_rewrite_builtins(parsed, surface) if surface.complete else \
        may_rewrite_builtins(parsed)
    return UNKNOWN if rewrites else compiled


def _children(node: Node) -> list[Node]:
    return [child for child in node.named_children if child.type != "comment"]


def _field(node: Node, name: str) -> Node | None:
    # by id: looking the name up in the grammar on each call took 40% of it
    return node.child_by_field_id(_FIELD_IDS[name])


class _Compiler:
    def __init__(self, parsed: ParsedExpression) -> None:
        self.parsed = parsed
        self.depth = 0
        # An ASCII text without HTML-like comments is its wrapped bytes' own characters, so a
        # node's text (the compiler asks only for names and literals, inside the expression) is
        # a slice of them: mapping byte offsets to code points was most of compiling's cost.
        plain = not parsed.html_comments and len(parsed.data) == len(parsed.source) + len(
            _WRAPPING)
        self.wrapped = parsed.data.decode("ascii") if plain else None
        # (a `?.` token is its two characters: without them, no link needs looking up)
        self.has_optional_chains = b"?." in parsed.data
        self.surface = CompiledSurface()

    def _unknown(self) -> Const:
        """Unknown, for a node whose subtree the compile does not follow."""
        self.surface.complete = False
        return UNKNOWN

    def text(self, node: Node) -> str:
        if self.wrapped is not None:
            return self.wrapped[node.start_byte:node.end_byte]
        return self.parsed.text(node)

    def name(self, node: Node) -> str | None:
        return decode_identifier(self.text(node))

    def expression(self, node: Node) -> Expr:
        kind = node.type
        constant = _CONSTANTS.get(kind)
        if constant is not None:
            return constant
        compile_kind = _COMPILERS.get(kind)
        if compile_kind is None or self.depth > MAX_DEPTH:
            return self._unknown()
        self.depth += 1
        compiled = compile_kind(self, node)
        self.depth -= 1  # (an exception ends the whole compile: no `finally` needed)
        return compiled

    def _parenthesized(self, node: Node) -> Expr:
        return self._only_child(node)

    def _name_read(self, node: Node) -> Expr:
        name = self.name(node)
        return self._unknown() if name is None else Name(name)

    def _number(self, node: Node) -> Expr:
        value = number_value(self.text(node))
        return self._unknown() if value is None else Const(Literals((value,)))

    def _plain_string(self, node: Node) -> Expr:
        return self._string(node, template=False)

    def _template(self, node: Node) -> Expr:
        pieces = [c for c in node.named_children if c.type == "template_substitution"]
        if not pieces:
            return self._string(node, template=True)
        return Template(tuple(self._only_child(piece) for piece in pieces))

    def _ternary(self, node: Node) -> Expr:
        parts = [_field(node, f) for f in ("condition", "consequence", "alternative")]
        if any(part is None for part in parts):
            return self._unknown()
        return Ternary(*(self.expression(part) for part in parts if part is not None))

    def _sequence(self, node: Node) -> Expr:
        return Sequence(tuple(self.expression(part) for part in _children(node)))

    def _only_child(self, node: Node) -> Expr:
        inner = _children(node)
        return self.expression(inner[0]) if len(inner) == 1 else self._unknown()

    def _string(self, node: Node, *, template: bool) -> Const:
        value = decode_string_body(self.text(node)[1:-1], template=template)
        return Const(StringType() if value is None else Literals((value,)))

    def _optional(self, node: Node) -> bool:
        return self.has_optional_chains and _field(node, "optional_chain") is not None

    def _read(self, node: Node) -> Expr:
        obj = _field(node, "object")
        if obj is None:
            return self._unknown()
        key: str | int | None = None
        index: Expr | None = None
        if node.type == "member_expression":
            prop = _field(node, "property")
            if prop is None or prop.type != "property_identifier":
                return self._unknown()
            key = self.name(prop)
            if key is None:
                return self._unknown()
        else:
            index_node = _field(node, "index")
            if index_node is None:
                return self._unknown()
            self._note_index(index_node)
            index = self.expression(index_node)
            key = _literal_key(index)
            if key is not None:
                index = None
        return Read(self.expression(obj), key, index, self._optional(node),
                    obj.type in _CHAINS)

    def _call(self, node: Node) -> Expr:
        callee, arguments = _field(node, "function"), _field(node, "arguments")
        if (callee is None or arguments is None or arguments.type != "arguments"
                or self._optional(node)):
            return self._unknown()
        compiled = tuple(self._argument(argument) for argument in _children(arguments))
        if callee.type == "identifier":
            name = self.name(callee)
            if name is None:
                return self._unknown()
            self.surface.global_callees.add(name)
            return Call(name, None, None, compiled, False, False)
        if callee.type != "member_expression":
            return self._unknown()
        obj, prop = _field(callee, "object"), _field(callee, "property")
        if obj is None or prop is None or prop.type != "property_identifier":
            return self._unknown()
        method = self.name(prop)
        if method is None:
            return self._unknown()
        optional = self._optional(callee)
        namespace = self.name(obj) if obj.type == "identifier" and not optional else None
        return Call(method, namespace, self.expression(obj), compiled, optional,
                    obj.type in _CHAINS)

    def _argument(self, node: Node) -> Expr | Arrow | Spread:
        if node.type == "spread_element":
            return Spread(self._only_child(node))
        if node.type == "arrow_function":
            return self._arrow(node)
        return self.expression(node)

    def _unknown_arrow(self) -> Arrow:
        self.surface.complete = False
        return Arrow((), None)

    def _note_index(self, index: Node) -> None:
        """What purity asks of an `o[k]` read: a literal key that names a handle, or (for a
        computed key) where its value goes, which only purity's own scan looks at."""
        if index.type == "string":
            self.surface.handle_key = self.surface.handle_key or is_handle(
                decode_string_body(self.text(index)[1:-1]))
        elif index.type != "number":
            self.surface.complete = False

    def _arrow(self, node: Node) -> Arrow:
        body = _field(node, "body")
        single = _field(node, "parameter")
        formal = _field(node, "parameters")
        parameters = [single] if single is not None else (
            _children(formal) if formal is not None else [])
        names = [self.name(p) if p.type == "identifier" else None for p in parameters]
        if (body is None or None in names
                or any(child.type == "async" for child in node.children)):
            return self._unknown_arrow()
        known = tuple(n for n in names if n is not None)
        self.surface.declared.update(known)
        if body.type != "statement_block":
            return Arrow(known, self.expression(body))
        block = self._block(body)
        return self._unknown_arrow() if block is None else Arrow(known, block[1], block[0])

    def _block(self, block: Node) -> tuple[tuple[tuple[str, Expr], ...], Expr] | None:
        """`{ const a = …; let b = …; return …; }` as its bindings and returned expression."""
        statements = _children(block)
        if not statements or statements[-1].type != "return_statement":
            return None
        bindings: list[tuple[str, Expr]] = []
        for statement in statements[:-1]:
            if statement.type != "lexical_declaration":
                return None
            for declarator in _children(statement):
                target, value = _field(declarator, "name"), _field(declarator, "value")
                if target is None or value is None or target.type != "identifier":
                    return None
                name = self.name(target)
                if name is None:
                    return None
                self.surface.declared.add(name)
                bindings.append((name, self.expression(value)))
        returned = _children(statements[-1])
        if len(returned) != 1:
            return None  # `return;` or a sequence without parentheses
        return tuple(bindings), self.expression(returned[0])

    def _operator(self, node: Node) -> Expr:
        operator_node = _field(node, "operator")
        if operator_node is None:
            return self._unknown()
        operator = operator_node.type
        if node.type == "unary_expression":
            self.surface.deletes = self.surface.deletes or operator == "delete"
            argument = _field(node, "argument")
            if argument is None:
                return self._unknown()
            return Unary(operator, self.expression(argument))
        left, right = _field(node, "left"), _field(node, "right")
        if left is None or right is None:
            return self._unknown()
        return Binary(operator, self.expression(left), self.expression(right))

    def _array(self, node: Node) -> Expr:
        items: list[Expr | Spread] = []
        expecting_item = True
        for child in node.children:
            if child.type == ",":
                if expecting_item:
                    return self._unknown()  # a hole: an item that is no property
                expecting_item = True
            elif child.is_named and child.type != "comment":
                expecting_item = False
                items.append(Spread(self._only_child(child)) if child.type == "spread_element"
                             else self.expression(child))
        return ArrayLiteral(tuple(items))

    def _object(self, node: Node) -> Expr:
        members: list[tuple[str, Expr] | Spread] = []
        for member in _children(node):
            kind = member.type
            if kind == "spread_element":
                members.append(Spread(self._only_child(member)))
                continue
            if kind == "pair":
                key = self._key(_field(member, "key"))
                value = _field(member, "value")
            elif kind == "shorthand_property_identifier":
                key, value = self.name(member), member
            else:
                return self._unknown()  # a method, a getter or setter
            if key is None or value is None or key in CONVERSION_KEYS:
                return self._unknown()
            members.append((key, self.expression(value)))
        return ObjectLiteral(tuple(members))

    def _key(self, key: Node | None) -> str | None:
        if key is None:
            return None
        if key.type == "property_identifier":
            return self.name(key)
        if key.type == "string":
            return decode_string_body(self.text(key)[1:-1])
        if key.type == "number":
            value = number_value(self.text(key))
            # a non-integer key's text is JavaScript's number-to-string, not followed here
            return str(value) if isinstance(value, int) and value >= 0 else None
        return None  # a computed key


_CONSTANTS: dict[str, Const] = {
    "true": Const(Literals((True,))),
    "false": Const(Literals((False,))),
    "null": Const(NullType()),
}


_COMPILERS: dict[str, Callable[[_Compiler, Node], Expr]] = {
    "parenthesized_expression": _Compiler._parenthesized,
    "member_expression": _Compiler._read,
    "subscript_expression": _Compiler._read,
    "call_expression": _Compiler._call,
    # (`undefined` is a name: a parameter may shadow it)
    "identifier": _Compiler._name_read,
    "shorthand_property_identifier": _Compiler._name_read,
    "undefined": _Compiler._name_read,
    "number": _Compiler._number,
    "string": _Compiler._plain_string,
    "template_string": _Compiler._template,
    "ternary_expression": _Compiler._ternary,
    "binary_expression": _Compiler._operator,
    "unary_expression": _Compiler._operator,
    "sequence_expression": _Compiler._sequence,
    "array": _Compiler._array,
    "object": _Compiler._object,
}


def _literal_key(index: Expr) -> str | int | None:
    """The key a literal index denotes (`["a"]`, `[0]`), None for any other index."""
    if isinstance(index, Const) and isinstance(index.type, Literals) and len(
            index.type.values) == 1:
        value = index.type.values[0]
        if isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None
