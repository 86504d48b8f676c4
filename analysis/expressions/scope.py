"""Which names a JavaScript scope declares, to tell a free `run` / `Date` from a shadowed one.

An identifier is free when no enclosing scope declares its name. Over-declaring is the safe
direction (a reference wrongly taken as shadowed is only a missed report), so Annex B corner
cases such as a function declaration inside a block count as declared in both the block and the
enclosing function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tree_sitter import Node

_FUNCTIONS = frozenset(
    {
        "arrow_function",
        "function_expression",
        "function_declaration",
        "generator_function",
        "generator_function_declaration",
        "method_definition",
    }
)
_BLOCKS = frozenset({"statement_block", "class_static_block", "switch_body", "program"})
_LOOPS = frozenset({"for_statement", "for_in_statement"})
_CLASSES = frozenset({"class", "class_declaration"})
_LEXICAL_DECLARATIONS = frozenset({"lexical_declaration", "using_declaration"})
_HOISTED_NAMED = frozenset(
    {"function_declaration", "generator_function_declaration", "class_declaration"}
)
SCOPES = _FUNCTIONS | _BLOCKS | _LOOPS | _CLASSES | {"catch_clause"}

NameOf = Callable[[Node], "str | None"]


def pattern_names(pattern: Node, name_of: NameOf) -> Iterator[str]:
    """The names a binding pattern (parameter, declarator target, catch parameter) declares."""
    kind = pattern.type
    if kind in ("identifier", "shorthand_property_identifier_pattern"):
        name = name_of(pattern)
        if name is not None:
            yield name
    elif kind == "pair_pattern":
        value = pattern.child_by_field_name("value")
        if value is not None:
            yield from pattern_names(value, name_of)
    elif kind in ("assignment_pattern", "object_assignment_pattern"):
        left = pattern.child_by_field_name("left")
        if left is not None:
            yield from pattern_names(left, name_of)
    elif kind in ("object_pattern", "array_pattern", "rest_pattern", "formal_parameters"):
        for child in pattern.named_children:
            yield from pattern_names(child, name_of)


def _declarator_names(declaration: Node, name_of: NameOf) -> Iterator[str]:
    for declarator in declaration.named_children:
        if declarator.type == "variable_declarator":
            target = declarator.child_by_field_name("name")
            if target is not None:
                yield from pattern_names(target, name_of)


def _hoisted_var_names(body: Node, name_of: NameOf) -> Iterator[str]:
    """`var` and block function names anywhere in a function body, not in nested functions."""
    stack = [body]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            kind = child.type
            if kind == "variable_declaration":
                yield from _declarator_names(child, name_of)
            elif kind in _HOISTED_NAMED:
                name = child.child_by_field_name("name")
                if name is not None and (decoded := name_of(name)) is not None:
                    yield decoded
            if kind == "for_in_statement" and _loop_kind(child) == "var":
                left = child.child_by_field_name("left")
                if left is not None:
                    yield from pattern_names(left, name_of)
            if kind not in _FUNCTIONS and kind not in _CLASSES:
                stack.append(child)


def _loop_kind(loop: Node) -> str | None:
    kind = loop.child_by_field_name("kind")
    return kind.type if kind is not None else None


def declared_names(scope: Node, name_of: NameOf) -> frozenset[str]:
    """The names `scope` (a node whose type is in SCOPES) declares for code inside it."""
    names: set[str] = set()
    kind = scope.type
    if kind in _FUNCTIONS:
        for field in ("parameter", "parameters"):
            params = scope.child_by_field_name(field)
            if params is not None:
                names.update(pattern_names(params, name_of))
        if kind in ("function_expression", "generator_function"):
            own_name = scope.child_by_field_name("name")
            if own_name is not None:
                names.update(pattern_names(own_name, name_of))
        body = scope.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            names.update(_hoisted_var_names(body, name_of))
    elif kind in _CLASSES:
        own_name = scope.child_by_field_name("name")
        if own_name is not None:
            names.update(pattern_names(own_name, name_of))
    elif kind == "catch_clause":
        param = scope.child_by_field_name("parameter")
        if param is not None:
            names.update(pattern_names(param, name_of))
    elif kind in _LOOPS:
        names.update(_loop_names(scope, name_of))
    else:
        names.update(_block_names(scope, name_of))
    return frozenset(names)


def _loop_names(loop: Node, name_of: NameOf) -> Iterator[str]:
    if loop.type == "for_in_statement":
        left = loop.child_by_field_name("left")
        if left is not None and _loop_kind(loop) is not None:
            yield from pattern_names(left, name_of)
        return
    initializer = loop.child_by_field_name("initializer")
    if initializer is not None and initializer.type in (
        "lexical_declaration",
        "variable_declaration",
    ):
        yield from _declarator_names(initializer, name_of)


def _block_names(block: Node, name_of: NameOf) -> Iterator[str]:
    for statement in block.named_children:
        kind = statement.type
        if kind in _LEXICAL_DECLARATIONS or kind == "variable_declaration":
            yield from _declarator_names(statement, name_of)
        elif kind in _HOISTED_NAMED:
            name = statement.child_by_field_name("name")
            if name is not None and (decoded := name_of(name)) is not None:
                yield decoded
        elif kind in ("switch_case", "switch_default"):
            yield from _block_names(statement, name_of)


class ScopeResolver:
    """Answers "is this reference free?" for one tree, caching each scope's declarations."""

    __slots__ = ("_declared", "_name_of")

    def __init__(self, name_of: NameOf) -> None:
        self._name_of = name_of
        self._declared: dict[int, frozenset[str]] = {}

    def is_free(self, reference: Node, name: str) -> bool:
        node = reference.parent
        while node is not None:
            if node.type == "with_statement":
                return False  # any name may resolve to the object's property (sloppy code only)
            if node.type in SCOPES:
                declared = self._declared.get(node.id)
                if declared is None:
                    declared = declared_names(node, self._name_of)
                    self._declared[node.id] = declared
                if name in declared:
                    return False
            node = node.parent
        return True
