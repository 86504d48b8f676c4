"""Templates as the engine resolves them (packages/core/src/interpolation/, verified with its
loader): verbatim fields, `| default(…)`, the save_to path check, the lexer's heads, and secret
taint through input defaults and context values."""

import pytest

from analysis.checks.analyze import analyze

WORKFLOW = """schema_version: '1.0'
workflow:
  id: templates
  inputs:
    - {{ name: topic, type: string }}
    - {{ name: token, type: secret }}
{inputs}
  context:
    - {{ key: team, value: eu }}
{context}
  agents:
    - {{ id: writer, model: claude-sonnet-4, provider: anthropic, system_prompt: {system} }}
  nodes:
    - {{ id: start, type: input }}
    - id: draft
      type: agent
      agent_ref: writer
      prompt_template: {prompt}
      system_prompt_append: {append}
    - {{ id: done, type: output, save_to: {save_to} }}
  edges:
    - {{ from: start, to: draft }}
    - {{ from: draft, to: done }}
"""


def check(**fields: str) -> list[tuple[str, str, str]]:
    """(rule, severity, source text at the finding) for each finding."""
    values = {"inputs": "", "context": "", "system": "'plain'", "prompt": "'hi'",
              "append": "'x'", "save_to": "'out/{{ run.id }}.png'", **fields}
    result = analyze(WORKFLOW.format(**values))
    text = result.source.text
    return [(d.rule, d.severity.name.lower(),
             text[result.source.offset(d.range.start):result.source.offset(d.range.end)])
            for d in result.diagnostics]


@pytest.mark.parametrize("text", [
    "'{{ topic }}'", "'{{ }}'", "'{{ inputs.nope }}'", "'{{ run.outputs[\"ghost\"] }}'",
    "'{{ ctx.none | upper }}'", "'{{ run.id }}'", "'{{ inputs . topic }}'",
])
@pytest.mark.parametrize("field", ["system", "append"])
def test_fields_sent_verbatim_are_not_resolved_so_nothing_in_them_fails(field: str,
                                                                        text: str) -> None:
    assert check(**{field: text}) == []


@pytest.mark.parametrize("field", ["system", "append"])
def test_a_secret_in_a_verbatim_field_is_still_refused(field: str) -> None:
    # collect.ts lists agent system_prompt and system_prompt_append as leak sites.
    assert check(**{field: "'{{ inputs.token }}'"}) == [
        ("secret-in-template", "error", "{{ inputs.token }}")]


@pytest.mark.parametrize("prompt", [
    "'{{ inputs.nope | default(\"x\") }}'", "'{{ ctx.gone | default(\"y\") }}'",
    "'{{ run.outputs[\"ghost\"] | default(\"z\") }}'", "'{{ inputs.nope.deep | default(1) }}'",
])
def test_an_undeclared_name_with_a_default_resolves_so_it_is_only_a_warning(prompt: str) -> None:
    [(rule, severity, _)] = check(prompt=prompt)
    assert (rule, severity) == ("unknown-template-reference", "warning")


def test_a_default_after_another_filter_does_not_save_an_undeclared_name() -> None:
    # `| length` of undefined throws before `| default` runs (filters.ts).
    assert check(prompt="'{{ inputs.nope | length | default(0) }}'") == [
        ("unknown-template-reference", "error", "nope")]


@pytest.mark.parametrize("prompt", [
    "'{{ inputs . topic }}'", "'{{ run.outputs.start }}'", "'{{ run . outputs[\"start\"] }}'",
    "'{{ run.id-x }}'",
])
def test_a_head_the_engine_lexer_does_not_read_is_invalid(prompt: str) -> None:
    [(rule, severity, found)] = check(prompt=prompt)
    assert (rule, severity) == ("invalid-template", "error")
    assert found == prompt.strip("'")


# Each verdict is the engine loader's (packages/shared/src/node.ts SaveToSchema).
@pytest.mark.parametrize(("save_to", "refused_at"), [
    ("o/{{run.id}}/f.png", None),
    ("o/{{  run.id\t}}/f.png", None),
    ("o/a}}b/f.png", None),
    ("o/{{ run.id}}}/f.png", None),
    ("o/{{ run.id }}{{ run.id }}/f.png", None),
    ("o/{{ run.id | json }}/f.png", "{{ run.id | json }}"),
    ("o/{{ run.id.x }}/f.png", "{{ run.id.x }}"),
    ("o/{{ inputs.topic }}/f.png", "{{ inputs.topic }}"),
    ("o/{{ secrets.k }}/f.png", "{{ secrets.k }}"),
    ("o/{{ run . id }}/f.png", "{{ run . id }}"),
    ("out/{{x/f.png", "{{"),
    ("o/{{{ run.id }}{/f.png", "{{{ run.id }}"),  # the first `{` and the last join
    ("o/{{{{ run.id }}}}/f.png", "{{{{ run.id }}"),
])
def test_save_to_interpolates_only_a_bare_run_id(save_to: str, refused_at: str | None) -> None:
    found = check(save_to=f'"{save_to}"'.replace("\t", "\\t"))
    if refused_at is None:
        assert found == []
    else:
        assert found == [("invalid-template", "error", refused_at)]


def test_a_secret_reaches_a_prompt_through_input_defaults_and_context() -> None:
    found = analyze(WORKFLOW.format(
        inputs="\n".join([
            "    - { name: reviewer, type: string, default: '{{ secrets.token }}' }",
            "    - { name: chained, type: string, default: 'via {{ inputs.reviewer }}' }",
            "    - { name: from-ctx, type: string, default: '{{ ctx.tok }}' }",
        ]),
        context="    - { key: tok, value: '{{ inputs.token }}' }",
        system="'plain'", append="'x'", save_to="'out.png'",
        prompt="'{{ inputs.reviewer }} {{ inputs.chained }} {{ inputs.from-ctx }} {{ ctx.tok }}'",
    )).diagnostics
    leaks = [d.message for d in found if d.rule == "secret-in-template"]
    assert len(leaks) == 4
    assert "inputs.reviewer ← secrets.token" in leaks[0]
    assert "inputs.chained ← inputs.reviewer ← secrets.token" in leaks[1]
    assert "inputs.from-ctx ← ctx.tok ← inputs.token" in leaks[2]
    assert "ctx.tok ← inputs.token" in leaks[3]
    # The defaults and the context value are where taint propagates, not leaks themselves.
    assert all("prompt_template" in leak for leak in leaks)


def test_a_clean_default_is_not_tainted() -> None:
    found = analyze(WORKFLOW.format(
        inputs="    - { name: who, type: string, default: 'team {{ ctx.team }}' }",
        context="", system="'plain'", append="'x'", save_to="'out.png'",
        prompt="'{{ inputs.who }}'",
    )).diagnostics
    assert [d.rule for d in found if d.rule == "secret-in-template"] == []


# filters.ts requireArity: default takes one argument, json/length/read_file none; references.ts
# parseFilter splits arguments at top-level commas and drops blank ones, and a part that is not
# `name` / `name(…)` is an unknown filter named by its whole text.
@pytest.mark.parametrize(("prompt", "found"), [
    ("'{{ inputs.topic | default }}'", "default"),
    ("'{{ inputs.topic | default(\"a\", \"b\") }}'", "default"),
    ("'{{ inputs.topic | json(2) }}'", "json"),
    ("'{{ inputs.topic | length(\"x\") }}'", "length"),
    ("'{{ inputs.topic | default(\"x\") junk }}'", 'default("x") junk'),
])
def test_a_filter_the_engine_cannot_apply_is_invalid(prompt: str, found: str) -> None:
    assert check(prompt=prompt) == [("invalid-template", "error", found)]


@pytest.mark.parametrize("prompt", [
    "'{{ inputs.topic | default(\"a|b, c\") }}'", "'{{ inputs.topic | default(\"a\",) }}'",
    "'{{ inputs.topic | json() | length }}'", "'{{ inputs.topic|json }}'",
])
def test_a_filter_with_the_arguments_it_takes_is_fine(prompt: str) -> None:
    assert check(prompt=prompt) == []
