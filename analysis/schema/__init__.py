"""The workflow schema, as one declarative description, and its walk.

The description is data, read by validation, completion (keys and enum values), hover and the
JSON Schema export; facts come from the engine's Zod schemas (HodeTech/Relavium
packages/shared/src/workflow.ts, node.ts, agent.ts, edge.ts, common.ts, constants.ts).
- `vocabulary`: the generic specs a schema is written in (text, numbers, lists, strict mappings,
  forms chosen by a key's value or presence), each checking one YAML node;
- `formats`: texts the engine checks further (a relative path, a regular expression, a URL);
- `common`, `agent`, `workflow`: the engine's schemas as data, and `workflow.validate`, the
  schema rules' findings for a workflow file;
- `agent_file`: an agent file (`*.agent.yaml`), the inline agent's spec at the top level, and
  `validate_agent_file`, as the engine's `parseAgent`;
- `walk`: the walk of a tree against a schema and its memory of findings by unit text;
- `lookups`: what hover and completion ask (the spec of a key, the keys a mapping accepts, the
  key or value under an offset);
- `output_schema`: the engine's strict compile of an authored `output_schema` (its refusals and
  the type it describes), with `subset` (the subset's keywords and bounds as data) and
  `value_types` (the type language);
- `json_schema`: the export.
"""
