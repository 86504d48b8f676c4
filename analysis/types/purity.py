"""Whether an expression may change what a built-in does before it calls it.

The sandbox freezes the scope and `Math`, not the prototypes (expression-sandbox-spec.md,
"Scope" and "Language surface"): `String.prototype.trim = …` inside an expression makes
`"a".trim()` anything. The inferred type of a built-in's call holds only when no code in the
expression can reach a built-in to change it, so an expression is trusted only when it has no
assignment, update, `delete` or `new`, names none of the reflective handles (`prototype`,
`constructor`, `Object.assign`, `Reflect`, `eval`, …), calls nothing but a named method or a
pure global function (no computed callee, no `.call` / `.apply` / `.bind`, no tagged template)
and hands no computed read (`o[k]`, which may be any of those handles) to a call. The
residue, stated: a handle reached through a computed key and passed through an array literal
to a callback is not followed.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from analysis.document.expressions.js_text import decode_identifier, decode_string_body
from analysis.document.expressions.parsing import ParsedExpression
from analysis.document.expressions.scope import SCOPES, declared_names
from analysis.types.builtins import GLOBAL_FUNCTIONS

_WRITES = frozenset({
    "assignment_expression", "augmented_assignment_expression", "update_expression",
    "new_expression", "with_statement", "class", "class_declaration",
})
_HANDLES = frozenset({
    "prototype", "constructor", "__proto__", "getPrototypeOf", "setPrototypeOf", "assign",
    "defineProperty", "defineProperties", "__defineGetter__", "__defineSetter__", "Reflect",
    "eval", "Function", "globalThis", "call", "apply", "bind",
})
_NAMES = frozenset({"identifier", "property_identifier", "shorthand_property_identifier",
                    "shorthand_property_identifier_pattern", "private_property_identifier"})
# Where a computed read's value is only read further or turned into a primitive: anywhere else
# (an argument, an array item, a binding, a returned value) it may be a handle passed on.
_CONSUMED_BY = frozenset({"member_expression", "subscript_expression", "unary_expression",
                          "template_substitution"})
_PASSING_OPERATORS = frozenset({"||", "&&", "??"})


def may_rewrite_builtins(parsed: ParsedExpression) -> bool:
    """True unless the expression surely leaves every built-in as the sandbox made it."""
    def name_of(node: Node) -> str | None:
        return decode_identifier(parsed.text(node))

    declared: set[str] = set()
    fresh_targets: set[int] = set()  # `assign` of `Object.assign({…}, …)`: a new object's
    stack: list[tuple[Node, Node | None]] = [(parsed.root, None)]
    calls: list[Node] = []
    while stack:
        node, parent = stack.pop()
        kind = node.type
        if kind in _WRITES or (kind == "unary_expression" and _operator(node) == "delete"):
            return True
        if kind in _NAMES:
            name = name_of(node)
            if name is None or (name in _HANDLES and node.id not in fresh_targets):
                return True
        elif kind == "call_expression":
            calls.append(node)
            if (assign := _assign_to_fresh_object(node, name_of)) is not None:
                fresh_targets.add(assign.id)
        elif kind == "subscript_expression" and _computed_handle(parsed, node, parent):
            return True
        if kind in SCOPES:
            declared.update(declared_names(node, name_of))
        stack.extend((child, node) for child in node.children)
    return not all(_plain_call(call, declared, name_of) for call in calls)


def _operator(node: Node) -> str | None:
    operator = node.child_by_field_name("operator")
    return operator.type if operator is not None else None


def _computed_handle(parsed: ParsedExpression, subscript: Node, parent: Node | None) -> bool:
    """Whether a `o[k]` read may be a handle that goes on to be called."""
    index = subscript.child_by_field_name("index")
    if index is not None and index.type == "number":
        return False
    if index is not None and index.type == "string":
        return decode_string_body(parsed.text(index)[1:-1]) in _HANDLES
    if parent is None or parent.type in _CONSUMED_BY:
        return False
    return not (parent.type == "binary_expression" and _operator(parent) not in _PASSING_OPERATORS)


def _assign_to_fresh_object(call: Node, name_of: Callable[[Node], str | None]) -> Node | None:
    """The `assign` name of `Object.assign({…}, …)`, which writes only to the new object."""
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if callee is None or callee.type != "member_expression" or arguments is None:
        return None
    namespace, prop = callee.child_by_field_name("object"), callee.child_by_field_name("property")
    first = next((a for a in arguments.named_children if a.type != "comment"), None)
    if (namespace is None or prop is None or first is None or first.type != "object"
            or name_of(namespace) != "Object" or name_of(prop) != "assign"):
        return None
    return prop

def _plain_call(call: Node, declared: set[str], name_of: Callable[[Node], str | None]) -> bool:
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "arguments":
        return False  # a tagged template
    callee = call.child_by_field_name("function")
    if callee is None:
        return False
    if callee.type == "identifier":
        name = name_of(callee)
        return name in GLOBAL_FUNCTIONS and name not in declared
    if callee.type == "member_expression":
        prop = callee.child_by_field_name("property")
        return prop is not None and prop.type == "property_identifier"
    return False
