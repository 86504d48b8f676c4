"""A generated, clean workflow dense in expressions (issue 26 item 3): every node but the input a
transform or a condition, each expression about 200 characters, in blocks of nine chained
transforms and a condition routing to the next block; a seed transform after the input and an end
transform after the last condition (`blocks` × 10 + 3 nodes)."""

from __future__ import annotations

DENSE_HEADER = """\
schema_version: '1.0'
workflow:
  id: dense
  inputs:
    - { name: topic, type: string, required: true }
    - { name: threshold, type: number, validation: { min: 0, max: 10 } }
  context:
    - { key: team, value: 'support-eu' }
  nodes:
    - { id: start, type: input, label: Start }
    - { id: seed, type: transform, transform: '({ total: 0, label: "seed", flags: [1] })' }
"""
DENSE_TRANSFORM = """\
    - id: d{i}-t{j}
      type: transform
      transform: >-
        ({{ total: (run.outputs["{prev}"].total ?? 0) + {j},
        label: String(inputs.topic ?? "none").slice(0, 40).toUpperCase(),
        flags: [1, 2, 3].map((x) => x * {j}).filter((x) => x > 2), team: ctx.team }})
"""
DENSE_CONDITION = """\
    - id: d{i}-route
      type: condition
      expression: >-
        (run.outputs["{prev}"].total ?? 0) > (inputs.threshold ?? 3)
        && String(run.outputs["{prev}"].label).length > 2
        && run.outputs["{prev}"].flags.length >= 1 ? "high" : "low"
      branches:
        - {{ when: high, target_node: {next} }}
      default: {next}
"""

DENSE_END = """\
    - {{ id: end, type: transform, transform: 'run.outputs["{prev}"].total' }}
"""


def dense_workflow(blocks: int = 500) -> str:
    """`blocks` × 10 nodes plus the input, the seed and the end; each node reads the one before."""
    nodes: list[str] = []
    edges, prev = ["    - { from: start, to: seed }\n"], "seed"
    for i in range(blocks):
        for j in range(9):
            nodes.append(DENSE_TRANSFORM.format(i=i, j=j, prev=prev))
            source = prev if j or i == 0 else f"'d{i - 1}-route:high'"
            edges.append(f"    - {{ from: {source}, to: d{i}-t{j} }}\n")
            prev = f"d{i}-t{j}"
        nxt = f"d{i+1}-t0" if i + 1 < blocks else "end"
        nodes.append(DENSE_CONDITION.format(i=i, prev=prev, next=nxt))
        edges.append(f"    - {{ from: {prev}, to: d{i}-route }}\n")
    nodes.append(DENSE_END.format(prev=prev))
    edges.append(f"    - {{ from: 'd{blocks - 1}-route:high', to: end }}\n")
    return DENSE_HEADER + "".join(nodes) + "  edges:\n" + "".join(edges)
