"""A generated workflow of independent chains, for the parallel dry run's tests and
bench/dry_run.py: after the input, each chain is a condition choosing one of two transforms, a
custom merge of them and `length` transforms each reading the one before; groups of eight chains
end in a custom merge, those in one last merge and the output. So a whole run has up to one ready
node per chain at every step: the engine claims `max_parallel` of them at once."""

from __future__ import annotations

import math

GROUP = 8

HEADER = """\
schema_version: '1.0'
workflow:
  id: chained
  inputs:
    - { name: level, type: number, required: true }
    - { name: topic, type: string, required: true }
  nodes:
    - { id: start, type: input }
"""

CHAIN_HEAD = """\
    - id: c{c}-route
      type: condition
      expression: '(inputs.level + {c}) % 3 > 0 ? "up" : "down"'
      branches:
        - {{ when: up, target_node: c{c}-up }}
        - {{ when: down, target_node: c{c}-down }}
    - id: c{c}-up
      type: transform
      transform: '({{ chain: {c}, way: "up", n: inputs.level * {c}, topic: inputs.topic }})'
    - id: c{c}-down
      type: transform
      transform: '({{ chain: {c}, way: "down", n: inputs.level - {c}, topic: inputs.topic }})'
    - id: c{c}-join
      type: merge
      merge_strategy: custom
      merge_fn: 'Object.assign({{}}, ...branches.filter((b) => b !== null))'
"""

STEP = """\
    - id: c{c}-s{s}
      type: transform
      transform: '({{ ...run.outputs["{prev}"], s{s}: run.outputs["{prev}"].n + {s} }})'
"""

GROUP_MERGE = """\
    - id: g{g}
      type: merge
      merge_strategy: custom
      merge_fn: 'branches.reduce((sum, b) => sum + b.n, 0)'
"""

TAIL = """\
    - id: all
      type: merge
      merge_strategy: custom
      merge_fn: 'branches.reduce((sum, b) => sum + b, 0)'
    - { id: done, type: output }
"""


def chain_end(chain: int, length: int) -> str:
    return f"c{chain}-s{length}" if length else f"c{chain}-join"


def chained_workflow(chains: int, length: int = 6) -> str:
    """`chains` chains of `length` + 4 nodes, ceil(chains / 8) group merges, `all` and `done`:
    49 chains of length 6 are 500 nodes (451 starts: a condition skips one branch per chain)."""
    nodes, edges = [HEADER], ["  edges:\n"]
    for c in range(chains):
        nodes.append(CHAIN_HEAD.format(c=c))
        edges.append(f"    - {{ from: start, to: c{c}-route }}\n"
                     f"    - {{ from: 'c{c}-route:up', to: c{c}-up }}\n"
                     f"    - {{ from: 'c{c}-route:down', to: c{c}-down }}\n"
                     f"    - {{ from: c{c}-up, to: c{c}-join }}\n"
                     f"    - {{ from: c{c}-down, to: c{c}-join }}\n")
        for s in range(1, length + 1):
            prev = chain_end(c, s - 1)
            nodes.append(STEP.format(c=c, s=s, prev=prev))
            edges.append(f"    - {{ from: {prev}, to: c{c}-s{s} }}\n")
    for g in range(math.ceil(chains / GROUP)):
        nodes.append(GROUP_MERGE.format(g=g))
        edges.extend(f"    - {{ from: {chain_end(c, length)}, to: g{g} }}\n"
                     for c in range(g * GROUP, min(chains, (g + 1) * GROUP)))
        edges.append(f"    - {{ from: g{g}, to: all }}\n")
    nodes.append(TAIL)
    edges.append("    - { from: all, to: done }\n")
    return "".join(nodes) + "".join(edges)


SAMPLES = '{"inputs": {"level": 4, "topic": "refund"}}'
