"""Completion contexts read from the live text: scalar styles, flow and block YAML, half-typed
files served from an older model, and text that is not a workflow at all."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.ide.candidates import Candidate
from analysis.ide.completion import complete
from tests.conftest import EXAMPLES

EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
MODEL = analyze(EXAMPLE)


def at_end_of(text: str, needle: str, result: AnalysisResult = MODEL) -> list[Candidate]:
    return complete(result, text, text.index(needle) + len(needle))


def labels(found: list[Candidate]) -> list[str]:
    return [candidate.label for candidate in found]


def test_expression_in_each_scalar_style() -> None:
    for written in ("'run.outputs.'", '"run.outputs."', "|\n        run.outputs.",
                    ">-\n        (1 +\n        run.outputs.", "run.outputs."):
        text = EXAMPLE.replace(
            "'({ topic: run.outputs.classify.topic, tier: inputs.customer_tier ?? \"free\" })'",
            written,
        )
        # `route`, an ancestor, is a condition: it stores no output (condition-output-read)
        assert labels(at_end_of(text, "run.outputs.", analyze(text))) == [
            "start", "classify", "enrich"
        ], written


def test_a_bracket_read_uses_a_quote_the_yaml_scalar_allows() -> None:
    text = EXAMPLE.replace("transform: '({ topic: run.outputs.classify.topic,",
                           "transform: \"({ topic: run.outputs.classify.topic,")
    text = text.replace("?? \"free\" })'", "?? 'free' })\"")
    extended = text.replace("- { id: done,", "- id: last\n      type: transform\n"
                            "      transform: \"run.outputs.dr\"\n    - { id: done,")
    extended = extended.replace("{ from: draft-reply, to: done }",
                                "{ from: draft-reply, to: last }")
    found = at_end_of(extended, "transform: \"run.outputs.dr", analyze(extended))
    (draft,) = [c for c in found if c.label == "draft-reply"]
    assert draft.text == "['draft-reply']"
    assert extended[draft.replace[0]:draft.replace[1]] == ".dr"


def test_a_new_node_not_yet_in_the_model_offers_no_outputs() -> None:
    text = EXAMPLE.replace("- { id: done,", "- id: fresh\n      type: transform\n"
                           "      transform: run.outputs.\n    - { id: done,")
    assert at_end_of(text, "transform: run.outputs.") == []
    assert "inputs" in labels(at_end_of(text.replace("run.outputs.", "in"), "transform: in"))


def test_block_nodes_find_their_id_below_the_field() -> None:
    text = EXAMPLE.replace(
        "    - id: history\n      type: transform\n      transform: '({ topic: run.outputs."
        "classify.topic, tier: inputs.customer_tier ?? \"free\" })'",
        "    - type: transform\n      transform: |\n        run.outputs[\"\n      id: history",
    )
    found = at_end_of(text, 'transform: |\n        run.outputs["')
    assert labels(found) == ["start", "classify", "enrich"]


def test_not_in_strings_or_after_other_members() -> None:
    text = EXAMPLE.replace("Object.assign({}, ...branches, { team: ctx.team })",
                           "Object.assign({}, ...branches, { team: 'ctx.tea")
    assert at_end_of(text, "'ctx.tea") == []  # inside a string
    text = EXAMPLE.replace("Object.assign({}, ...branches, { team: ctx.team })",
                           "Object.assign({}, ...branches) /* ctx.")
    assert at_end_of(text, "/* ctx.") == []  # inside a comment
    text = EXAMPLE.replace("Object.assign({}, ...branches, { team: ctx.team })",
                           "Object.assign({}, ...branches, { a: 'x', b: /* c */ ctx.")
    assert labels(at_end_of(text, "/* c */ ctx.")) == ["team", "crm_auth"]
    text = EXAMPLE.replace("Object.assign({}, ...branches, { team: ctx.team })",
                           "Object.assign({}, ...branches, { team: foo.ctx")
    assert at_end_of(text, "foo.ctx") == []


def test_template_heads_and_save_to() -> None:
    text = EXAMPLE.replace("save_to: 'replies/{{ run.id }}.json'", "save_to: 'replies/{{ r")
    assert labels(at_end_of(text, "replies/{{ r")) == ["inputs.", "ctx.", "run.id"]
    text = EXAMPLE.replace("Ticket: {{ inputs.ticket_text }}", "Ticket: {{ inputs.ti }}")
    found = at_end_of(text, "Ticket: {{ inputs.ti")
    assert labels(found)[0] == "ticket_text"
    assert text[found[0].replace[0]:found[0].replace[1]] == "ti"
    assert at_end_of(EXAMPLE, "Ticket: {{ inputs.ticket_text }}") == []  # closed


def test_template_dot_reads_are_written_as_edges() -> None:
    text = EXAMPLE.replace("Ticket: {{ inputs.ticket_text }}", "Ticket: {{ run.outputs.hi")
    found = at_end_of(text, "Ticket: {{ run.outputs.hi")
    (history,) = [c for c in found if c.label == "history"]
    assert history.text == '["history"]'
    assert text[history.replace[0]:history.replace[1]] == ".hi"
    text = EXAMPLE.replace("message_template: 'Urgent {{ run.outputs[\"topic\"] }}",
                           'message_template: "Urgent {{ run.outputs.c')
    (classify,) = [c for c in at_end_of(text, "Urgent {{ run.outputs.c") if c.label == "classify"]
    assert classify.text == '[\\"classify\\"]'


def test_yaml_values_in_block_style() -> None:
    text = EXAMPLE.replace("gate_type: approval", "gate_type: ap")
    assert labels(at_end_of(text, "gate_type: ap")) == ["approval", "input", "review"]
    text = EXAMPLE.replace("      default: enrich", "      default: ")
    assert "route" not in labels(at_end_of(text, "      default: "))  # not itself
    text = EXAMPLE.replace("trigger: { type: manual }", "trigger: { type: ma")
    assert labels(at_end_of(text, "trigger: { type: ma")) == [
        "manual", "webhook", "schedule", "file_change", "mcp_call"
    ]
    text = EXAMPLE.replace("output_schema:\n        type: object",
                           "output_schema:\n        type: ob")
    assert at_end_of(text, "type: ob") == []  # a JSON schema's type is free


def test_no_model_no_candidates() -> None:
    broken = analyze("workflow: [\n")
    assert complete(broken, "workflow: [\n", 5) == []


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("- {}[]:'\"\n ab.#|>\\é😀runoutps(){}ctx"), max_size=80),
       st.data())
def test_never_raises_on_any_text_and_offset(noise: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(EXAMPLE)))
    text = EXAMPLE[:cut] + noise + EXAMPLE[cut:]
    offset = data.draw(st.integers(-2, len(text) + 2))
    for candidate in complete(MODEL, text, offset):
        start, end = candidate.replace
        assert 0 <= start <= end <= len(text)


def test_no_list_after_every_space_in_an_expression() -> None:
    text = EXAMPLE.replace("(inputs.severity_floor ?? 7)", "(inputs.severity_floor ?? ")
    assert at_end_of(text, "severity_floor ?? ") == []
    assert "inputs" in labels(at_end_of(text.replace("?? ", "?? i"), "severity_floor ?? i"))


def test_secrets_are_ranked_last_where_they_are_refused() -> None:
    text = EXAMPLE.replace("Ticket: {{ inputs.ticket_text }}", "Ticket: {{ inputs.")
    found = at_end_of(text, "Ticket: {{ inputs.")
    assert (found[-1].label, found[-1].detail, found[-1].rank) == (
        "crm_token", "secret input — templates may not print it", 1)
    text = EXAMPLE.replace("value: 'support-eu'", "value: '{{ inputs.")
    found = at_end_of(text, "value: '{{ inputs.")
    (token,) = [c for c in found if c.label == "crm_token"]
    assert (token.detail, token.rank) == ("secret input", 0)  # a context value may hold one


def test_an_edge_target_is_narrowed_by_its_source() -> None:
    text = EXAMPLE.replace("{ from: 'route:normal', to: enrich }", "{ from: 'route:normal', to: ")
    assert labels(at_end_of(text, "{ from: 'route:normal', to: ")) == ["enrich"]
    text = EXAMPLE.replace("{ from: enrich, to: history }", "{ from: enrich, to: h")
    assert labels(at_end_of(text, "{ from: enrich, to: h")) == ["history", "sentiment"]
    text = EXAMPLE.replace("{ from: history, to: combine }", "{ from: history, to: c")
    assert len(at_end_of(text, "{ from: history, to: c")) == 11  # any node may follow
    block = EXAMPLE.replace("    - { from: enrich, to: history }\n",
                            "    - from: enrich\n      to: \n")
    assert labels(at_end_of(block, "from: enrich\n      to: ")) == ["history", "sentiment"]


def test_keys_offered_are_the_schema_keys_not_yet_written() -> None:
    # A new line in an agent node: that node type's keys, minus the ones it has.
    text = EXAMPLE.replace("      agent_ref: classifier\n",
                           "      agent_ref: classifier\n      re\n")
    found = at_end_of(text, "agent_ref: classifier\n      re")
    keys = labels(found)
    assert "retry" in keys and "temperature" in keys and "output_modalities" in keys
    assert not {"id", "type", "agent_ref", "prompt_template", "expression"} & set(keys)
    retry = next(c for c in found if c.label == "retry")
    assert retry.text == "retry: " and retry.documentation.startswith("Re-dispatch")
    assert retry.replace == (text.index("re\n", text.index("agent_ref: classifier")),
                             text.index("re\n", text.index("agent_ref: classifier")) + 2)
    # An inline agent's keys, and a trigger's keys nested under its own key.
    text = EXAMPLE.replace("      provider: anthropic\n      system_prompt: You classify",
                           "      provider: anthropic\n      \n      system_prompt: You classify")
    keys = labels(at_end_of(text, "provider: anthropic\n      "))
    assert "reasoning_effort" in keys and "mcp_servers" in keys and "model" not in keys
    text = EXAMPLE.replace("  trigger: { type: manual }",
                           "  trigger:\n    type: webhook\n    \n")
    assert labels(at_end_of(text, "type: webhook\n    ")) == ["webhook"]
    # An offset past the end (a client's stale position) is clamped like any other context.
    text = EXAMPLE + "\n  "
    found = complete(MODEL, text, len(text) + 2)
    assert "metadata" in labels(found)
    assert {candidate.replace for candidate in found} == {(len(text), len(text))}


def test_enum_values_come_from_the_schema_where_the_cursor_is() -> None:
    text = EXAMPLE.replace("      agent_ref: classifier\n",
                           "      agent_ref: classifier\n      retry: { max: 2, backoff: linear, "
                           "retry_on: [pro\n")
    assert labels(at_end_of(text, "retry_on: [pro")) == [
        "provider_rate_limit", "provider_unavailable", "tool_failed", "sandbox_error"]
    text = EXAMPLE.replace("      provider: anthropic\n      system_prompt: You classify",
                           "      provider: \n      system_prompt: You classify")
    assert labels(at_end_of(text, "provider: ")) == ["anthropic", "openai", "gemini", "deepseek"]
    text = EXAMPLE.replace("{ name: crm_token, type: secret, required: false }",
                           "{ name: crm_token, type: secret, required: fa }")
    assert labels(at_end_of(text, "required: fa")) == ["true", "false"]


def test_hover_on_a_key_shows_its_schema_doc() -> None:
    from analysis.ide.describe import key_doc

    root = MODEL.document.root
    offset = EXAMPLE.index("max_parallel")
    found = key_doc(root, offset + 3)
    assert found is not None
    text, span = found
    assert span == (offset, offset + len("max_parallel"))
    # the engine's admission ceiling (ADR-0086) is part of the bounds
    assert text == ("**`max_parallel`** (integer 1–64) · Cap on concurrent LLM calls (8 when "
                    "omitted).")
    offset = EXAMPLE.index("gate_type")
    assert key_doc(root, offset)[0].startswith(  # type: ignore[index]
        "**`gate_type`** (one of: approval, input, review, required) · What the human")
    assert key_doc(root, EXAMPLE.index("claude-sonnet-4")) is None  # a value, not a key
    # A key right after a block list (whose end is where the key starts).
    assert key_doc(root, EXAMPLE.index("  context:") + 2)[0].startswith(  # type: ignore[index]
        "**`context`** (list of mapping)")


def test_a_long_file_is_read_focused_with_the_same_answer() -> None:
    """Completion reads a long file reduced to the cursor's ancestors and their keys; every line
    of a generated workflow gets the same schema place (key, spec, keys of its mapping) as from
    the whole text."""
    from analysis.document.source import SourceText
    from analysis.document.yaml_read import read_yaml
    from analysis.ide.completion_text import focused
    from analysis.schema.lookups import keys_of, spec_at
    from tests.analysis.large_workflow import large_workflow

    text = large_workflow(8)
    whole = read_yaml(SourceText(text)).root
    compared = read = 0
    offset = 0
    for line in text.splitlines(keepends=True):
        at = offset + len(line) - len(line.lstrip(" -"))
        offset += len(line)
        reduced, moved = focused(text, at)
        read += len(reduced)
        expected, found = spec_at(whole, at), spec_at(read_yaml(SourceText(reduced)).root, moved)
        assert (expected is None) == (found is None), line
        if expected is None or found is None:
            continue
        assert (found.key, found.spec) == (expected.key, expected.spec), line
        if expected.owner is not None:
            assert found.owner is not None
            assert list(keys_of(found.owner, found.mapping)) == list(
                keys_of(expected.owner, expected.mapping)), line
        compared += 1
    assert compared > 250
    assert read < len(text) * compared / 20  # what is read is a small part of the file
