"""Whether a node of an expression's syntax tree is evaluated every time the expression is:
what makes a property read of an `undefined` value certain to throw (condition-output-read)."""

from __future__ import annotations

from tree_sitter import Node

# What runs its children on some evaluations only (or never: a function not called).
_MAYBE_EVALUATED = frozenset({
    "arrow_function", "function_expression", "function", "function_declaration",
    "generator_function", "generator_function_declaration", "method_definition", "class_body",
    "try_statement", "catch_clause", "finally_clause", "for_statement", "for_in_statement",
    "while_statement", "do_statement", "switch_statement", "switch_case", "switch_default",
    "augmented_assignment_expression",
})


def always_evaluated(path: list[Node], index: int, known: dict[int, bool]) -> bool:
    """Whether evaluating the expression always evaluates `path[index]` (`path`: the nodes from
    the root down): no ancestor runs it only on some paths (the right of `&&`/`||`/`??`, a branch
    of `?:` or `if`, a loop or `switch` body, a `try` block, a function that may never be
    called). `known` keeps each path node's answer by node id, for the walk's later calls: reads
    in a long chain of `+` share their ancestors, and walking them again per read was quadratic."""
    walked: list[int] = []
    answer = True
    while index > 0:
        cached = known.get(path[index].id)
        if cached is not None:
            answer = cached
            break
        walked.append(index)
        if not _evaluated_with_parent(path[index - 1], path[index]):
            answer = False
            break
        index -= 1
    for step in walked:  # each lies at or below where the answer was decided
        known[path[step].id] = answer
    return answer


def _evaluated_with_parent(parent: Node, child: Node) -> bool:
    kind = parent.type
    if kind in _MAYBE_EVALUATED:
        return False
    if kind == "binary_expression":
        operator = parent.child_by_field_name("operator")
        return not (operator is not None and operator.type in ("&&", "||", "??")
                    and parent.child_by_field_name("right") == child)
    if kind in ("ternary_expression", "if_statement"):
        return parent.child_by_field_name("condition") == child
    return True
