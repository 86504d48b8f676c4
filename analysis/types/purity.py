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

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tree_sitter import Node, QueryCursor

from analysis.document.expressions.js_text import decode_identifier, decode_string_body
from analysis.document.expressions.parsing import ParsedExpression, query
from analysis.document.expressions.scope import SCOPES, declared_names
from analysis.types.builtins import GLOBAL_FUNCTIONS

_HANDLES = frozenset({
    "prototype", "constructor", "__proto__", "getPrototypeOf", "setPrototypeOf", "assign",
    "defineProperty", "defineProperties", "__defineGetter__", "__defineSetter__", "Reflect",
    "eval", "Function", "globalThis", "call", "apply", "bind",
})
# Where a handle's name may be written (a name holding one, or an escaped identifier): only
# then are the names looked at one by one.
_HANDLE_TEXT = re.compile(b"|".join(re.escape(name.encode()) for name in sorted(_HANDLES))
                          + b"|\\\\")
# The scan runs in tree-sitter's C code; Python looks at the few nodes it finds. The scopes
# are needed only when a call names a global function, but a second query over the tree cost
# more than capturing them in the one pass.
_SCAN = query("""
[(assignment_expression) (augmented_assignment_expression) (update_expression) (new_expression)
 (with_statement) (class) (class_declaration)] @write
(unary_expression operator: "delete") @write
(call_expression) @call
(subscript_expression) @subscript
""" + "[" + " ".join(f"({kind})" for kind in sorted(SCOPES - {"program"})) + "] @scope")
_NAMES = query("""
[(identifier) (property_identifier) (shorthand_property_identifier)
 (shorthand_property_identifier_pattern) (private_property_identifier)] @name
""")
# Where a computed read's value is only read further or turned into a primitive: anywhere else
# (an argument, an array item, a binding, a returned value) it may be a handle passed on.
_CONSUMED_BY = frozenset({"member_expression", "subscript_expression", "unary_expression",
                          "template_substitution"})
_PASSING_OPERATORS = frozenset({"||", "&&", "??"})


@dataclass(slots=True)
class CompiledSurface:
    """What a compile of the tree (`analysis.types.program`) saw that purity asks about. When
    it followed every node (`complete`), that is all purity's scan would find but the names of
    handles, which `surface_may_rewrite_builtins` looks for as the scan does: a compile reaches
    no write (it follows no assignment, update, `new`, `class` or statement but `const`/`let`
    and `return`) except `delete`, only calls of a name or a named method, only literal
    subscripts, and only the scopes of arrows and their blocks."""

    complete: bool = True
    deletes: bool = False
    handle_key: bool = False  # `o["constructor"]`
    global_callees: set[str] = field(default_factory=set)  # `f(…)`
    declared: set[str] = field(default_factory=set)  # parameters and `const` / `let` names


def is_handle(key: str | None) -> bool:
    """Whether a literal key (None: one that does not decode) names a reflective handle."""
    return key in _HANDLES


def surface_may_rewrite_builtins(parsed: ParsedExpression, surface: CompiledSurface) -> bool:
    """`may_rewrite_builtins` for a tree a compile followed whole (`surface.complete`)."""
    if surface.deletes or surface.handle_key or any(
            name not in GLOBAL_FUNCTIONS or name in surface.declared
            for name in surface.global_callees):
        return True
    return bool(_HANDLE_TEXT.search(parsed.data)) and _names_a_handle(
        parsed, lambda node: decode_identifier(parsed.text(node)))


def may_rewrite_builtins(parsed: ParsedExpression) -> bool:
    """True unless the expression surely leaves every built-in as the sandbox made it."""
    def name_of(node: Node) -> str | None:
        return decode_identifier(parsed.text(node))

    found = QueryCursor(_SCAN).captures(parsed.root)
    if found.get("write"):
        return True
    if _HANDLE_TEXT.search(parsed.data) and _names_a_handle(parsed, name_of):
        return True
    if any(_computed_handle(parsed, node, node.parent) for node in found.get("subscript", ())):
        return True
    calls = found.get("call", ())
    declared: set[str] = set()
    if any(_global_callee(call, name_of) for call in calls):
        for scope in found.get("scope", ()):
            declared.update(declared_names(scope, name_of))
    return not all(_plain_call(call, declared, name_of) for call in calls)


def _names_a_handle(parsed: ParsedExpression, name_of: Callable[[Node], str | None]) -> bool:
    for node in QueryCursor(_NAMES).captures(parsed.root).get("name", ()):
        name = name_of(node)
        if name is None or (name in _HANDLES and not _assigns_to_fresh_object(node, name_of)):
            return True
    return False


def _global_callee(call: Node, name_of: Callable[[Node], str | None]) -> bool:
    callee = call.child_by_field_name("function")
    return callee is not None and callee.type == "identifier" and name_of(
        callee) in GLOBAL_FUNCTIONS


def _operator(node: Node) -> str | None:
    operator = node.child_by_field_name("operator")
    return operator.type if operator is not None else None


def _computed_handle(parsed: ParsedExpression, subscript: Node, parent: Node | None) -> bool:
    """Whether a `o[k]` read may be a handle that goes on to be called."""
    index = subscript.child_by_field_name("index")
    if index is not None and index.type == "number":
        return False
    if index is not None and index.type == "string":
        return is_handle(decode_string_body(parsed.text(index)[1:-1]))
    if parent is None or parent.type in _CONSUMED_BY:
        return False
    return not (parent.type == "binary_expression" and _operator(parent) not in _PASSING_OPERATORS)


def _assigns_to_fresh_object(name: Node, name_of: Callable[[Node], str | None]) -> bool:
    """Whether `name` is the `assign` of `Object.assign({…}, …)`, which writes only into the
    object it makes."""
    callee = name.parent
    call = callee.parent if callee is not None else None
    if callee is None or call is None or call.type != "call_expression" or name_of(name) != (
            "assign") or callee.child_by_field_name("property") != name:
        return False
    namespace = callee.child_by_field_name("object")
    arguments = call.child_by_field_name("arguments")
    first = None if arguments is None else next(
        (a for a in arguments.named_children if a.type != "comment"), None)
    return (namespace is not None and name_of(namespace) == "Object" and first is not None
            and first.type == "object")


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
