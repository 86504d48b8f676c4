"""The engine's size bounds in a dry run (ADR-0087 §2). The facts pinned here are read from
packages/core/src/engine/size-bounds.ts (02eeb5f2), its test size-bounds.test.ts (c9de520) and
engine.ts `#settleCompleted`: an output is measured as the UTF-8 bytes of JSON.stringify when the
node completes; over 262,144 bytes the node fails `validation` with "node `ID` output is N bytes,
above the limit of 262144"; else the kept outputs' total plus this one over 4,194,304 fails it
with "the workflow state is N bytes, above the limit of 4194304"; only a kept output counts."""

from __future__ import annotations

import json
import shutil
import subprocess
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.dryrun.bounds import (
    MEDIA_HANDLE,
    NODE_OUTPUT_BYTES,
    WORKFLOW_STATE_BYTES,
    serialized_bytes,
)
from analysis.dryrun.values import _chunks, json_text, same_json, value_text
from sandbox.outcome import number_tag
from tests.analysis.dryrun.test_workflow_run import by_id, dry_run, pins, statuses

AGENTS = """\
  agents:
    - { id: w, model: claude-sonnet-4, provider: anthropic, system_prompt: x }
  nodes:
    - { id: start, type: input }
"""


def pinned_agents(count: int) -> str:
    nodes = "".join(
        f"    - {{ id: a{index}, type: agent, agent_ref: w, prompt_template: hi }}\n"
        for index in range(count)
    )
    edges = "".join(f"    - {{ from: start, to: a{index} }}\n" for index in range(count))
    return AGENTS + nodes + "  edges:\n" + edges


def test_an_output_of_exactly_256_kib_is_kept_and_one_byte_more_fails_the_node() -> None:
    # size-bounds.test.ts: a string of limit - 2 characters (its quotes make 2) is admitted
    body = pinned_agents(2)
    run = dry_run(body, pins({"outputs": {
        "a0": "x" * (NODE_OUTPUT_BYTES - 2), "a1": "x" * (NODE_OUTPUT_BYTES - 1),
    }}))
    nodes = by_id(run)
    assert nodes["a0"]["status"] == "pinned"
    assert nodes["a1"]["status"] == "failed" and "value" not in nodes["a1"]
    assert nodes["a1"]["error"] == {
        "code": "validation", "retryable": False,
        "message": f"node `a1` output is {NODE_OUTPUT_BYTES + 1} bytes, above the limit of "
                   f"{NODE_OUTPUT_BYTES}",
    }


def test_the_state_bound_counts_kept_outputs_and_fails_the_node_that_passes_it() -> None:
    # the input node keeps `{}` (2 bytes), fifteen agents 256 KiB each, the sixteenth what is
    # left of 4 MiB: the state is then exactly at the bound (kept); a 3-byte `"z"` passes it
    full = "y" * (NODE_OUTPUT_BYTES - 2)
    rest = WORKFLOW_STATE_BYTES - 2 - 15 * NODE_OUTPUT_BYTES
    outputs = {f"a{index}": full for index in range(15)}
    run = dry_run(pinned_agents(17), pins({"outputs": {
        **outputs, "a15": "y" * (rest - 2), "a16": "z",
    }}))
    failed = [node for node in run.nodes if node.status == "failed"]
    assert [node.id for node in failed] == ["a16"]
    assert failed[0].error is not None and failed[0].error["message"] == (
        f"the workflow state is {WORKFLOW_STATE_BYTES + 3} bytes, above the limit of "
        f"{WORKFLOW_STATE_BYTES}"
    )


LADDER_LEVELS = 40


def ladder(levels: int) -> str:
    """Each level concatenates two copies of the level below: the value doubles, the objects
    do not (the merges share one list)."""
    nodes = ["    - { id: start, type: input }",
             "    - { id: seed, type: transform, transform: '\"x\"' }"]
    edges = ["    - { from: start, to: seed }"]
    below = "seed"
    for level in range(levels):
        nodes += [f"    - {{ id: l{level}, type: merge, merge_strategy: first }}",
                  f"    - {{ id: r{level}, type: merge, merge_strategy: first }}",
                  f"    - {{ id: m{level}, type: merge, merge_strategy: concat }}"]
        edges += [f"    - {{ from: {below}, to: l{level} }}",
                  f"    - {{ from: {below}, to: r{level} }}",
                  f"    - {{ from: l{level}, to: m{level} }}",
                  f"    - {{ from: r{level}, to: m{level} }}"]
        below = f"m{level}"
    nodes.append("    - { id: out, type: output }")
    edges.append(f"    - {{ from: {below}, to: out }}")
    return "  nodes:\n" + "\n".join(nodes) + "\n  edges:\n" + "\n".join(edges) + "\n"


def ladder_size(level: int) -> int:
    """`m<level>`'s JSON.stringify bytes: `"x"` is 3, `[a,a]` is twice a plus 3."""
    size = 3
    for _ in range(level + 1):
        size = 2 * size + 3
    return size


def test_a_ladder_of_concat_merges_fails_where_the_value_passes_256_kib() -> None:
    run = dry_run(ladder(LADDER_LEVELS))
    first_over = next(level for level in range(LADDER_LEVELS)
                      if ladder_size(level) > NODE_OUTPUT_BYTES)
    nodes = by_id(run)
    assert nodes[f"m{first_over - 1}"]["status"] == "ran"
    assert nodes[f"m{first_over}"]["error"]["message"] == (
        f"node `m{first_over}` output is {ladder_size(first_over)} bytes, above the limit of "
        f"{NODE_OUTPUT_BYTES}"
    )
    assert ("out", "skipped") in statuses(run)


def test_a_media_part_is_measured_as_its_handle_and_a_lookalike_in_full() -> None:
    data = "A" * (2 * NODE_OUTPUT_BYTES)
    media = {"type": "media", "mimeType": "image/png", "source": {"kind": "base64", "data": data}}
    handled = {"type": "media", "mimeType": "image/png",
               "source": {"kind": "base64", "data": MEDIA_HANDLE}}
    assert serialized_bytes(media, {})[0] == len(json.dumps(handled, separators=(",", ":")))
    lookalike = {"kind": "base64", "data": data}
    assert serialized_bytes(lookalike, {})[0] == len(json.dumps(lookalike, separators=(",", ":")))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=30,
)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node to run JSON.stringify")
@settings(max_examples=1, deadline=None)
@given(st.lists(JSON_VALUES, min_size=50, max_size=50))
def test_the_measure_is_json_stringify_s_utf8_bytes(values: list[Any]) -> None:
    # JSON.stringify itself is the oracle: numbers as Number::toString, strings unescaped
    # but for quotes, backslashes, controls and lone surrogates
    script = ("const v = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(v.map(x => Buffer.byteLength(JSON.stringify(x)))))")
    answer = subprocess.run(["node", "-e", script], input=json.dumps(values),
                            capture_output=True, text=True, timeout=60, check=True)
    assert [serialized_bytes(value, {})[0] for value in values] == json.loads(answer.stdout)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["concat", "first", "object_merge"]), min_size=1, max_size=30),
       st.integers(0, 3))
def test_value_growing_workflows_end_quickly_within_the_bounds(
    strategies: list[str], width: int
) -> None:
    # every level merges 1 + width copies of the level below: at most doubling per level
    # whatever it holds, a run answers, and what it kept fits the engine's bounds
    nodes = ["    - { id: start, type: input }",
             "    - { id: seed, type: transform, transform: '({a: \"x\"})' }"]
    edges = ["    - { from: start, to: seed }"]
    below = "seed"
    for level, strategy in enumerate(strategies):
        copies = [f"c{level}_{index}" for index in range(width + 1)]
        nodes += [f"    - {{ id: {copy}, type: merge, merge_strategy: first }}" for copy in copies]
        nodes.append(f"    - {{ id: m{level}, type: merge, merge_strategy: {strategy} }}")
        edges += [f"    - {{ from: {below}, to: {copy} }}" for copy in copies]
        edges += [f"    - {{ from: {copy}, to: m{level} }}" for copy in copies]
        below = f"m{level}"
    body = "  nodes:\n" + "\n".join(nodes) + "\n  edges:\n" + "\n".join(edges) + "\n"
    run = dry_run(body)
    kept = [node for node in run.nodes if node.status == "ran"]
    total = sum(serialized_bytes(node.value, {})[0] for node in kept)
    assert total <= WORKFLOW_STATE_BYTES
    assert all(serialized_bytes(node.value, {})[0] <= NODE_OUTPUT_BYTES for node in kept)
    assert json.loads(json_text(run.to_json()))["ok"] == run.ok


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 2]), st.booleans())
@example(-0.0, None, False)  # found by a CI run: shown as the sandbox shows it, "-0"
def test_the_iterative_writer_writes_what_json_dumps_writes(
    value: Any, indent: int | None, ascii_only: bool
) -> None:
    # the text a value nested too deeply for json.dumps is written as (the starter samples
    # file is indented, answers are ASCII)
    expected = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    encode = encode_basestring_ascii if ascii_only else encode_basestring
    assert "".join(_chunks(value, encode, indent)) == expected
    # a top-level number JSON cannot tell apart (-0) is shown by its tag, as the sandbox's answer
    tag = number_tag(value)
    assert value_text(value) == (tag if tag is not None else json.dumps(value, ensure_ascii=False))


def test_deep_values_are_shown_compared_and_answered_without_recursion() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    assert value_text(deep, 12) == "[" * 11 + "…"
    assert json_text({"value": deep}) == '{"value": ' + "[" * 5000 + '"x"' + "]" * 5000 + "}"
    again: Any = "x"
    for _ in range(5000):
        again = [again]
    assert same_json(deep, again) and not same_json(deep, [again])
    assert serialized_bytes(deep, {})[0] == 2 * 5000 + 3
    indented = json_text(deep, ensure_ascii=False, indent=2)
    assert indented.startswith("[\n  [\n    [") and indented.count("\n") == 2 * 5000



def chain(length: int) -> str:
    """`length` concat merges in a row: each wraps its one branch in a list, so `out`
    captures {} inside `length` lists."""
    nodes = ["    - { id: start, type: input }"]
    edges = []
    below = "start"
    for index in range(length):
        nodes.append(f"    - {{ id: m{index}, type: merge, merge_strategy: concat }}")
        edges.append(f"    - {{ from: {below}, to: m{index} }}")
        below = f"m{index}"
    nodes.append("    - { id: out, type: output }")
    edges.append(f"    - {{ from: {below}, to: out }}")
    return "  nodes:\n" + "\n".join(nodes) + "\n  edges:\n" + "\n".join(edges) + "\n"


def test_a_scope_nested_deeper_than_the_sandbox_admits_fails_the_node_not_the_run() -> None:
    # the sandbox refuses a pathologically deep scope before injection (spec: `scope`); the
    # run raised ScopeError instead, which `run` reported as a usage error for the whole file
    run = dry_run(chain(200).replace(
        "    - { id: out, type: output }", "    - { id: out, type: transform, transform: '1' }"
    ))
    assert statuses(run)[-2:] == [("m199", "ran"), ("out", "failed")]
    error = by_id(run)["out"]["error"]
    assert (error["code"], error["reason"]) == ("sandbox_error", "scope")
