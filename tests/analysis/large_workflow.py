"""A generated, clean workflow of any size (blocks of ten nodes), for tests and bench/. Its agent
answers the JSON its nodes read (`score`, `topic`): without the schema, it would answer text."""

from __future__ import annotations

HEADER = """\
schema_version: '1.0'
workflow:
  id: generated
  inputs:
    - { name: topic, type: string, required: true }
    - { name: threshold, type: number, validation: { min: 0, max: 10 } }
  context:
    - { key: team, value: 'support-eu' }
  agents:
    - id: writer
      model: claude-sonnet-4
      provider: anthropic
      system_prompt: You help team {{ ctx.team }}.
      output_schema:
        { type: object, properties: { score: { type: number }, topic: { type: string } } }
  nodes:
    - { id: start, type: input, label: Start }
"""

BLOCK = """\
    - id: b{i}-classify
      type: agent
      agent_ref: writer
      prompt_template: |
        Classify "{{{{ inputs.topic }}}}" — étape {i}.
        Previous: {{{{ run.outputs["{prev}"] | json }}}}
    - id: b{i}-route
      type: condition
      expression: 'run.outputs["b{i}-classify"].score > (inputs.threshold ?? 3) ? "high" : "low"'
      branches:
        - {{ when: high, target_node: b{i}-escalate }}
        - {{ when: low, target_node: b{i}-fan }}
      default: b{i}-fan
    - id: b{i}-escalate
      type: human_gate
      gate_type: approval
      timeout_ms: 3600000
      message_template: 'Block {i}: {{{{ inputs.topic }}}} needs a look'
    - {{ id: b{i}-fan, type: parallel, parallel_of: [b{i}-left, b{i}-right] }}
    - id: b{i}-left
      type: transform
      transform: "({{ doubled: run.outputs['b{i}-classify'].score * 2 }})"
    - id: b{i}-right
      type: transform
      transform: >-
        ({{ words: String(run.outputs['b{i}-classify'].topic ?? inputs.topic).split(" ").length }})
    - id: b{i}-join
      type: merge
      merge_strategy: custom
      merge_fn: |
        Object.assign({{}}, ...branches, {{ team: ctx.team }})
    - id: b{i}-shape
      type: transform
      transform: '({{ ...run.outputs["b{i}-join"], block: {i} }})'
    - id: b{i}-note
      type: transform
      transform: 'run.outputs["b{i}-shape"].block + 1'
    - id: b{i}-pass
      type: transform
      transform: '[run.outputs["b{i}-note"], run.outputs["b{i}-escalate"] ?? null]'
"""

EDGES = """\
    - {{ from: {prev}, to: b{i}-classify }}
    - {{ from: b{i}-classify, to: b{i}-route }}
    - {{ from: 'b{i}-route:high', to: b{i}-escalate }}
    - {{ from: 'b{i}-route:low', to: b{i}-fan }}
    - {{ from: b{i}-fan, to: b{i}-left }}
    - {{ from: b{i}-fan, to: b{i}-right }}
    - {{ from: b{i}-left, to: b{i}-join }}
    - {{ from: b{i}-right, to: b{i}-join }}
    - {{ from: b{i}-join, to: b{i}-shape }}
    - {{ from: b{i}-escalate, to: b{i}-shape }}
    - {{ from: b{i}-shape, to: b{i}-note }}
    - {{ from: b{i}-note, to: b{i}-pass }}
"""


def large_workflow(blocks: int = 100) -> str:
    """`blocks` × 10 nodes plus the input node; every block reads the one before it."""
    previous = ["start"] + [f"b{i}-pass" for i in range(blocks - 1)]
    nodes = "".join(BLOCK.format(i=i, prev=previous[i]) for i in range(blocks))
    edges = "".join(EDGES.format(i=i, prev=previous[i]) for i in range(blocks))
    return HEADER + nodes + "  edges:\n" + edges
