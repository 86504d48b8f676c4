"""A whole dry run grows linearly (issue 12, target 2): 10x the nodes cost at most about 10x the
host work, although every node's scope holds all its ancestors' outputs.

The witnesses are operation counts, not time: the characters the scope serialiser produces
(`json.dumps` in `sandbox.scope`), the values the scope admission walks (`_check_json`), and
the run loop's reads of node statuses. Each stored output is admitted and serialised once per
run, and the loop decides a node once its dependencies settled instead of rescanning every
pending node at every step. What stays proportional to each request (the assembly of its text
from the pieces, the VM's JSON.parse and freeze) is the scope the spec hands every evaluation;
bench/dry_run.py measures it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

import sandbox.scope
from analysis.checks.analyze import analyze
from analysis.dryrun.runner import _Runner, run_workflow
from analysis.dryrun.samples import Samples, parse_samples
from sandbox import Outcome, Scope, evaluate
from tests.analysis.large_workflow import large_workflow

HEAD = """\
schema_version: '1.0'
workflow:
  id: generated
  inputs:
    - { name: topic, type: string, required: true }
  agents:
    - { id: writer, model: m, provider: anthropic }
  nodes:
    - { id: start, type: input }
"""


def generated(count: int, node: Callable[[int], str], edges: Callable[[int], str]) -> str:
    """`count` nodes (and their edges) after the input node `start`."""
    return (HEAD + "".join(map(node, range(count))) + "  edges:\n"
            + "".join(map(edges, range(count))))


def chain(length: int) -> str:
    """Transforms in a chain, each output a record the next node reads: node k's scope holds k
    outputs, so re-serialising them per node costs n²/2 records."""
    return generated(
        length,
        lambda i: f"    - id: t{i}\n      type: transform\n      transform: '({{ n: "
                  f"{f'run.outputs.t{i - 1}.n' if i else '0'} + 1, pad: \"{'é' * 20}\" }})'\n",
        lambda i: f"    - {{ from: {f't{i - 1}' if i else 'start'}, to: t{i} }}\n",
    )


def in_process(source: str, kind: str, scope: Scope) -> Outcome:
    return evaluate(source, kind, scope, with_detail=True)  # type: ignore[arg-type]


def work(text: str, pins: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The witnesses of one whole dry run of `text`, with the real in-process sandbox."""
    result = analyze(text)
    assert result.workflow is not None and result.graph is not None
    samples = parse_samples(
        json.dumps({"inputs": {"topic": "refund"}, "outputs": pins}), "pins", "explicit",
        is_json=True,
    )
    counts: Counter[str] = Counter()
    dumps, check, start = json.dumps, sandbox.scope._check_json, _Runner.__init__

    class Statuses(dict[str, str]):
        def __getitem__(self, node_id: str) -> str:
            counts["status reads"] += 1
            return super().__getitem__(node_id)

    def counted_dumps(value: Any, **options: Any) -> str:
        text = dumps(value, **options)
        counts["serialised"] += len(text)
        return text

    def counted_check(*args: Any) -> None:
        counts["admitted"] += 1
        check(*args)

    def counted_start(runner: _Runner, *args: Any) -> None:
        start(runner, *args)
        runner.status = Statuses(runner.status)

    with monkeypatch.context() as patch:
        patch.setattr(sandbox.scope, "json", SimpleNamespace(dumps=counted_dumps))
        patch.setattr(sandbox.scope, "_check_json", counted_check)
        patch.setattr(_Runner, "__init__", counted_start)
        run = run_workflow(result.workflow, result.graph, in_process, samples)
    assert run.ok, [node.to_json() for node in run.nodes if node.status == "failed"]
    counts["nodes"] = len(run.nodes)
    return counts


SHAPES = {
    "a chain of transforms": (chain, lambda n: {}),
    # the bench's workflow: agents pinned, conditions, gates, parallels, custom merges
    "blocks of every node type": (large_workflow, lambda n: {
        f"b{i}-classify": {"score": i % 7, "topic": f"topic {i}"} for i in range(n)
    }),
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_ten_times_the_nodes_cost_at_most_about_ten_times_the_work(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, pins = SHAPES[shape]
    small, large = (20, 200) if shape.startswith("a chain") else (2, 20)
    before = work(make(small), pins(small), monkeypatch)
    after = work(make(large), pins(large), monkeypatch)
    assert after["nodes"] >= 9 * before["nodes"]
    for witness in ("serialised", "admitted", "status reads"):
        assert before[witness] > 0
        assert after[witness] <= 12 * before[witness], (witness, before, after)


def test_every_request_is_the_one_the_plain_scope_makes() -> None:
    """Shared pieces change how the request is made, not one byte of it (nor what it holds):
    the same as `Scope.from_json` of the plain values, as the run built them before."""
    result = analyze(large_workflow(3))
    assert result.workflow is not None and result.graph is not None
    samples = parse_samples(
        json.dumps({"inputs": {"topic": "réfund ✓"},
                    "outputs": {f"b{i}-classify": {"score": 2 + i, "topic": f"tópic {i}"}
                                for i in range(3)},
                    "nodes": {"b2-join": {"outputs": {"b2-left": {"doubled": -0.0}}}}}),
        "pins", "explicit", is_json=True,
    )
    seen: list[str] = []

    def compared(source: str, kind: str, scope: Scope) -> Outcome:
        plain = Scope.from_json(scope.to_json())
        assert scope.vm_request(kind, source) == plain.vm_request(kind, source)
        seen.append(kind)
        return in_process(source, kind, scope)

    run = run_workflow(result.workflow, result.graph, compared, samples)
    assert run.ok, [node.to_json() for node in run.nodes if node.status == "failed"]
    assert {"condition", "transform", "merge"} <= set(seen)


def fanned_out(count: int) -> str:
    """Agents fed by `start`, each read by a transform of its own."""
    return generated(
        count,
        lambda i: f"    - {{ id: a{i}, type: agent, agent_ref: writer, prompt_template: hi }}\n"
                  f"    - {{ id: t{i}, type: transform, transform: 'run.outputs.a{i}.n + 1' }}\n",
        lambda i: f"    - {{ from: start, to: a{i} }}\n    - {{ from: a{i}, to: t{i} }}\n",
    )


def test_per_node_samples_cost_their_own_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """A samples file with a `nodes.<id>` entry for each of n nodes: laying one over the others
    copied every pinned output for each of them (n²); now only what the entry overrides."""
    for_node = Samples.for_node

    def work(count: int) -> int:
        copied = 0

        def counted(samples: Samples, node_id: str) -> Samples:
            nonlocal copied
            merged = for_node(samples, node_id)
            copied += sum(len(mine) for mine, theirs in (
                (merged.inputs, samples.inputs), (merged.ctx, samples.ctx),
                (merged.outputs, samples.outputs)) if mine is not theirs)
            return merged

        result = analyze(fanned_out(count))
        assert result.workflow is not None and result.graph is not None
        raw = {
            "inputs": {"topic": "x"},
            "outputs": {f"a{i}": {"n": i} for i in range(count)},
            "nodes": {
                **{f"a{i}": {"outputs": {f"a{i}": {"n": -i}}} for i in range(count)},
                **{f"t{i}": {"inputs": {"topic": f"t{i}"}} for i in range(count)},
            },
        }
        samples = parse_samples(json.dumps(raw), "pins", "explicit", is_json=True)
        with monkeypatch.context() as patch:
            patch.setattr(Samples, "for_node", counted)
            run = run_workflow(result.workflow, result.graph, in_process, samples)
        assert run.ok
        assert [node.value for node in run.nodes if node.id in ("a1", "t1")] == [{"n": -1}, 0]
        return copied

    small, large = work(10), work(100)
    assert 0 < large <= 12 * small, (small, large)
