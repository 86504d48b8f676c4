"""What a Dataflow (`analysis.types.dataflow`) keeps across versions of a document, and the
typed value it hands out: values only, no document objects, so that a memo kept on an analysis
result never holds an earlier version's tree.

- `TypedValue(type, origin, enforced)`: a type, where it comes from in words, and whether the
  engine holds the value to it.
- `TypesMemo`: one analysis's expression types, derived outputs (`KeptOutput`) and the typed
  rules' per-site facts, each with the whole of what it was derived from, for the next version's
  Dataflow to take over where that is equal.
- `graph_shape(graph)`: what of the graph a node's output depends on beyond its own text.

A node's derived output is taken over (`TypesMemo.outputs`, the previous object) when the node's
text and the ids it reads are the previous version's, the graph has the same shape and every
producer's output is the previous object; an agent's is always derived again (its agent may be
declared elsewhere, in another file), and an output derived again that equals the previous one
is the previous object, so a keystroke costs a comparison by identity for every output it does
not change. The Dataflow takes the unchanged outputs over in one pass when it is made and
derives the rest on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analysis.document.graph import Graph
from analysis.schema.value_types import AnyValue, ObjectType, ValueType


@dataclass(frozen=True)
class TypedValue:
    type: ValueType
    origin: str
    enforced: bool = True


UNKNOWN = TypedValue(AnyValue(), "unknown")

# What an expression's types are derived from besides the inputs and context: its text, and
# each output it reads (and a merge's each fan-in branch) with its type.
ExpressionKey = tuple[object, ...]
# What a node's output is derived from besides its producers' outputs and the graph's shape:
# the node's own text and the ids its expression reads.
OutputKey = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class KeptOutput:
    """A node's output as one analysis derived it, with what it was derived from."""

    key: OutputKey
    producers: tuple[str, ...]
    output: TypedValue | None


@dataclass
class TypesMemo:
    """The expression types one analysis derived, for the next version's (values only, no
    document objects). An entry is taken over only when its key, the whole of what the types
    are derived from, is equal; the inputs' and context's types are keyed once for all."""

    inputs: ObjectType | None = None
    ctx: ObjectType | None = None
    expressions: dict[str, tuple[ExpressionKey, tuple[ValueType, ValueType]]] = field(
        default_factory=dict)
    # The graph's shape as far as outputs depend on it (`graph_shape`), and each output derived.
    shape: tuple[object, ...] = ()
    outputs: dict[str, KeptOutput] = field(default_factory=dict)
    # The typed rules' facts per site, each with the whole of what it is derived from
    # (`analysis.checks.typed_reads.kept_verdict`): an expression's steps with the rules'
    # verdicts on them, a condition's branches never taken, a template reference's failing
    # filter; values only, taken over when that is equal, like the rest.
    sites: dict[object, tuple[object, object]] = field(default_factory=dict)


def graph_shape(graph: Graph) -> tuple[object, ...]:
    """What of the graph a node's output depends on besides its own text and its producers:
    the ids and links (ancestors, fan-in), every node's type (a merge's branches are its
    value-producing feeders), each parallel's members (a merge's branch order) and the secret
    inputs (an input node's masking)."""
    nodes = graph.workflow.nodes_by_id
    return (tuple(graph.node_ids), graph.successors,
            tuple(node.type for node in nodes.values()),
            tuple((name, tuple(member.id for member in node.parallel_of))
                  for name, node in nodes.items() if node.type == "parallel"),
            graph.secret_inputs)
