"""Which names a JavaScript scope declares, to tell a free `run` / `Date` from a shadowed one.

An identifier is free when no enclosing scope declares its name. Over-declaring is the safe
direction (a reference wrongly taken as shadowed is only a missed report), so Annex B corner
cases such as a function declaration inside a block count as declared in both the block and the
enclosing function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

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
    stack = [pattern]  # not recursion: `[[[[x]]]]` may nest thousands deep
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            name = name_of(node)
            if name is not None:
                yield name
        elif kind == "pair_pattern":
            value = node.child_by_field_name("value")
            if value is not None:
                stack.append(value)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            left = node.child_by_field_name("left")
            if left is not None:
                stack.append(left)
        elif kind in ("object_pattern", "array_pattern", "rest_pattern", "formal_parameters"):
            stack.extend(node.named_children)


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


class ScopedWalk:
    """A depth-first walk in source order that knows, at each node, its ancestors and which
    names the scopes around it declare.

    tree-sitter finds a node's parent by descending from the root, so walking up from every
    reference costs O(depth) per step and made long expressions (`a + a + … + a`, thousands of
    levels deep) cubic; this walk keeps the path itself. Iterating yields each node; `path` then
    ends with it, `kind` is its type, `is_free(name)` answers for it, and `skip_children()` prunes
    its subtree.
    Given `targets` (sorted byte offsets), it enters only subtrees that contain one of them.
    """

    def __init__(self, root: Node, name_of: NameOf, targets: Sequence[int] | None = None) -> None:
        self._root = root
        self._targets = targets
        self._name_of = name_of
        self.path: list[Node] = []
        self._declared: dict[str, int] = {}  # name → number of enclosing scopes declaring it
        self._frames: list[tuple[int, frozenset[str]]] = []  # (depth of the scope, its names)
        self._with_depths: list[int] = []
        self._skip = False
        self.kind = ""  # the current node's type (asked once: every call makes a new string)

    def is_free(self, name: str) -> bool:
        """Whether `name` at the current node is the global (no enclosing declaration)."""
        # Inside `with (o)` (sloppy code only) any name may be a property of `o`.
        return not self._with_depths and not self._declared.get(name)

    def skip_children(self) -> None:
        self._skip = True

    def __iter__(self) -> Iterator[Node]:
        if self._targets is None:
            return self._everything()
        return self._toward(self._targets)

    def _enter(self, node: Node, depth: int) -> None:
        """Make `node`, at `depth`, the current node: the path ends with it, its scope is open."""
        if len(self.path) > depth:  # else nothing to leave: the node is a child of the last one
            self._leave_to(depth)
        self.path.append(node)
        self.kind = kind = node.type
        if kind in SCOPES:
            names = declared_names(node, self._name_of)
            for name in names:
                self._declared[name] = self._declared.get(name, 0) + 1
            self._frames.append((depth, names))
        elif kind == "with_statement":
            self._with_depths.append(depth)
        self._skip = False

    def _everything(self) -> Iterator[Node]:
        stack: list[tuple[Node, int]] = [(self._root, 0)]
        while stack:
            node, depth = stack.pop()
            self._enter(node, depth)
            yield node
            if not self._skip:
                stack.extend((child, depth + 1) for child in reversed(node.children))

    def _toward(self, targets: Sequence[int]) -> Iterator[Node]:
        """The root, then the nodes whose span holds a target byte, in source order: for each
        target, from the deepest node of the path that holds it down the one child holding it
        (tree-sitter's cursor finds it; listing every child of every node on the way and testing
        each was most of the walk)."""
        self._enter(self._root, 0)
        yield self._root
        path = self.path
        cursor = self._root.walk()
        # (bound once: this loop steps into every node of every scan, 130,000 at 5,000
        # expressions)
        enter, reset = self._enter, cursor.reset
        first_child_for_byte = cursor.goto_first_child_for_byte
        pruned = 0 if self._skip else None  # the depth of a node on the path not to enter
        for target in targets:
            depth = len(path) - 1
            while depth > 0 and path[depth].end_byte <= target:
                depth -= 1
            if depth + 1 < len(path):
                # Left now, not when the next node is entered (a target may lie between
                # children): each node is passed over by one target only.
                self._leave_to(depth + 1)
            if pruned is not None:
                # Nothing was entered below the pruned node: it ends the path.
                if depth == pruned:
                    continue
                pruned = None
            reset(path[depth])
            while first_child_for_byte(target) is not None:
                child = cursor.node
                assert child is not None
                if child.start_byte > target:
                    break  # the target lies between children: no child holds it
                depth += 1
                enter(child, depth)
                yield child
                if self._skip:
                    pruned = depth
                    break

    def _leave_to(self, depth: int) -> None:
        """Pop the path (and the scopes it opened) back to the parent of a node at `depth`."""
        del self.path[depth:]
        while self._frames and self._frames[-1][0] >= depth:
            for name in self._frames.pop()[1]:
                self._declared[name] -= 1
        while self._with_depths and self._with_depths[-1] >= depth:
            self._with_depths.pop()
