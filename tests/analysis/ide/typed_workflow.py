"""A workflow whose nodes declare output_schemas of every shape typed completion and hover read:
an enum, a described property, a key a `.` cannot reach, an array of objects, an open object,
transforms whose output is inferred and one whose expression says nothing (its declared schema
stands); shared by the analysis tests and the server's."""

from __future__ import annotations

TYPED = """\
schema_version: '1.0'
workflow:
  id: typed-reads
  version: '1.0.0'
  name: Typed reads
  trigger: { type: manual }
  inputs:
    - { name: issue, type: string, required: true, description: The ticket text }
    - { name: limit, type: number }
  agents:
    - { id: classifier, model: claude-sonnet-4, provider: anthropic, system_prompt: Classify. }
  nodes:
    - { id: start, type: input }
    - id: classify
      type: agent
      agent_ref: classifier
      prompt_template: 'Classify {{ inputs.issue }}'
      output_schema:
        type: object
        additionalProperties: false
        required: [severity, labels]
        properties:
          severity: { type: string, enum: [low, high] }
          topic: { type: string, description: What the ticket is about }
          ticket-id: { type: integer }
          labels:
            type: array
            items:
              type: object
              properties:
                name: { type: string, description: The label's name }
                score: { type: number }
    - id: notes
      type: agent
      agent_ref: classifier
      prompt_template: 'Notes on {{ run.outputs["classify"].topic }}'
    - { id: fan, type: parallel, parallel_of: [left, right] }
    - id: left
      type: transform
      transform: '({ size: run.outputs.classify.labels.length })'
    - id: right
      type: transform
      transform: '({ note: run.outputs.classify.topic ?? "none" })'
    - id: loose
      type: transform
      transform: 'JSON.parse(inputs.issue)'
      output_schema: { type: object, properties: { size: { type: number } } }
    - id: join
      type: merge
      merge_strategy: custom
      merge_fn: '[branches[0].size, branches[1].note]'
    - id: report
      type: transform
      transform: 'run.outputs["classify"].labels[0].name'
  edges:
    - { from: start, to: classify }
    - { from: classify, to: notes }
    - { from: notes, to: fan }
    - { from: fan, to: left }
    - { from: fan, to: right }
    - { from: notes, to: loose }
    - { from: loose, to: report }
    - { from: left, to: join }
    - { from: right, to: join }
    - { from: join, to: report }
"""
