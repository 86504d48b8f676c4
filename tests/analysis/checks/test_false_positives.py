"""Valid workflows that must stay clean: each case is one a user hit as a false positive."""

from analysis.checks.analyze import analyze


def rules_reported(text: str) -> list[str]:
    return [diagnostic.rule for diagnostic in analyze(text).diagnostics]


def test_integral_floats_are_integers_as_in_javascript() -> None:
    # The engine reads YAML into JavaScript numbers: `3e5` and `1000.0` pass its `.int()`.
    text = """schema_version: '1.0'
workflow:
  id: floats
  timeout_ms: 3e5
  max_parallel: 4.0
  budget: { max_cost_microcents: 1.5e6, on_exceed: warn }
  agents: [{ id: writer, model: m, provider: openai, system_prompt: s }]
  nodes:
    - { id: start, type: input }
    - { id: draft, type: agent, agent_ref: writer, max_tokens: 1000.0,
        retry: { max: 2.0, backoff: linear } }
  edges:
    - { from: start, to: draft }
"""
    assert rules_reported(text) == []
    assert rules_reported(text.replace("max_tokens: 1000.0", "max_tokens: 1000.5")) == [
        "invalid-value"]


def test_a_handle_is_javascripts_string_of_a_numeric_when() -> None:
    # String(0.00001) is "0.00001" and String(1e-7) is "1e-7" (not Python's "1e-05", "1e-07").
    text = """schema_version: '1.0'
workflow:
  id: handles
  nodes:
    - id: route
      type: condition
      expression: '0.00001'
      branches:
        - { when: 0.00001, target_node: small }
        - { when: 1e-7, target_node: tiny }
        - { when: 1e21, target_node: huge }
    - { id: small, type: output }
    - { id: tiny, type: output }
    - { id: huge, type: output }
  edges:
    - { from: 'route:0.00001', to: small }
    - { from: 'route:1e-7', to: tiny }
    - { from: 'route:1e+21', to: huge }
"""
    assert rules_reported(text) == []


def test_a_pipe_inside_a_filter_argument_is_text_not_a_filter() -> None:
    text = """schema_version: '1.0'
workflow:
  id: pipes
  inputs: [{ name: x, type: string }]
  context:
    - { key: a, value: '{{ inputs.x | default("a|b") }}' }
    - { key: b, value: "{{ inputs.x | default('n/a | none') | json }}" }
  nodes: [{ id: start, type: input }]
  edges: []
"""
    assert rules_reported(text) == []
    result = analyze(text.replace("| json", "| jsn"))
    [diagnostic] = result.diagnostics
    assert diagnostic.rule == "invalid-template" and "unknown filter 'jsn'" in diagnostic.message
    assert result.source.line_text(diagnostic.range.start.line)[
        diagnostic.range.start.character:diagnostic.range.end.character] == "jsn"


def test_an_agent_from_the_registry_does_not_fail_the_check() -> None:
    # The engine resolves agent_ref in the workspace registry too: a miss is only a warning.
    text = """schema_version: '1.0'
workflow:
  id: registry
  agents: [{ id: writer, model: m, provider: openai, system_prompt: Write. }]
  nodes:
    - { id: start, type: input }
    - { id: draft, type: agent, agent_ref: writer }
    - { id: review, type: agent, agent_ref: security-reviewer }
  edges:
    - { from: start, to: draft }
    - { from: draft, to: review }
"""
    [diagnostic] = analyze(text).diagnostics
    assert (diagnostic.rule, diagnostic.severity.label) == ("unknown-agent", "warning")
    assert rules_reported(text.replace(
        "  agents: [{ id: writer, model: m, provider: openai, system_prompt: Write. }]\n", "")
    ) == []
