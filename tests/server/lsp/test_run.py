"""`relavium.runWithSampleScope` and `relavium.createSampleScope` end to end, on the real
sandbox worker pool."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from tests.conftest import EXAMPLES
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = pytest.mark.asyncio(loop_scope="module")

RUN = "relavium.runWithSampleScope"
CREATE = "relavium.createSampleScope"
EXAMPLE = (EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")
SECRET = "s3cr3t-value-never-shown"

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: dry-run
  inputs:
    - {{ name: ticket, type: string, default: hello }}
    - {{ name: token, type: secret, required: false }}
  context:
    - {{ key: team, value: support-eu }}
    - {{ key: auth, value: 'Bearer {{{{ inputs.token }}}}' }}
  nodes:
    - {{ id: start, type: input }}
    - id: calc
      type: {kind}
      {field}: |
        {expression}
{extra}  edges:
    - {{ from: start, to: calc }}
"""
FIELDS = {"transform": "transform", "condition": "expression"}
CONDITION_EXTRA = "      branches:\n        - { when: true, target_node: start }\n"


def workflow(expression: str, kind: str = "transform") -> str:
    extra = CONDITION_EXTRA if kind == "condition" else ""
    return WORKFLOW.format(kind=kind, field=FIELDS[kind], expression=expression, extra=extra)


async def run(client: RelaviumClient, uri: str, node: str, **extra: Any) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=RUN, arguments=[{"uri": uri, "node": node, **extra}])
    )
    assert isinstance(result, dict), result
    return result


def everything_said(client: RelaviumClient) -> str:
    return json.dumps(
        [m.message for m in client.messages] + [m.message for m in client.log_messages]
    )


async def test_the_example_runs_with_a_synthesized_scope(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("example-run.relavium.yaml", EXAMPLE)
    result = await run(client, uri, "route")
    assert result["ok"] is True and result["value"] == "normal"
    assert result["scope"]["source"] == "synthesized" and result["scope"]["path"] is None
    # run.outputs narrowed to route's ancestors, keys sorted
    assert list(result["scope"]["values"]["run"]["outputs"]) == ["classify", "start"]
    assert client.messages[-1].type == types.MessageType.Info
    assert client.messages[-1].message == 'route → "normal"'
    assert "run route (condition) with the synthesized scope" in client.log_messages[-1].message
    # progress: a begin and an end on one token
    kinds = [[report.kind for report in reports] for reports in client.progress_reports.values()]
    assert ["begin", "end"] in kinds


async def test_the_sidecar_beats_synthesis_and_explicit_beats_the_sidecar(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("scoped.relavium.yaml", EXAMPLE)
    sidecar = workspace.write(
        "scoped.samples.json",
        json.dumps({"inputs": {"severity_floor": 5, "crm_token": "placeholder"},
                    "outputs": {"classify": {"severity": 8}}}),
    )
    result = await run(client, uri, "route")
    assert (result["value"], result["scope"]["source"]) == ("urgent", "sidecar")
    assert result["scope"]["path"] == str(sidecar)
    explicit = workspace.write(
        "explicit.yaml",
        "inputs: { crm_token: placeholder }\noutputs:\n  classify: { severity: 1 }\n",
    )
    result = await run(client, uri, "route", scope=str(explicit))
    assert (result["value"], result["scope"]["source"]) == ("normal", "explicit")


async def test_branches_follow_the_fan_in_order(
    client: RelaviumClient, workspace: Workspace
) -> None:
    text = EXAMPLE.replace(
        "Object.assign({}, ...branches, { team: ctx.team })",
        "branches.map(b => Object.keys(b)[0])",
    ).replace("parallel_of: [history, sentiment]", "parallel_of: [sentiment, history]")
    uri = workspace.open("fan-in.relavium.yaml", text)
    # the ancestors ran first; branches follow the parallel's order, not the edges'
    result = await run(client, uri, "combine")
    assert result["value"] == ["mood", "topic"]


@pytest.mark.parametrize(
    ("kind", "expression", "reason"),
    [
        ("transform", "({ x: ", "syntax"),
        ("transform", "missing.value", "runtime"),
        ("condition", "({ not: 'a branch value' })", "result_type"),
        ("transform", "() => 1", "non_serializable"),
        ("transform", "'x'.repeat(2 ** 27).repeat(8)", "memory"),
        ("transform", "(function f(n) { return f(n + 1) + 1 })(0)", "stack"),
        ("transform", "(() => { while (true) {} })()", "timeout"),
    ],
)
async def test_each_error_reason(
    client: RelaviumClient, workspace: Workspace, kind: str, expression: str, reason: str
) -> None:
    uri = workspace.open(f"reason-{reason}.relavium.yaml", workflow(expression, kind))
    result = await run(client, uri, "calc")
    assert result["ok"] is False
    assert result["error"]["code"] == "sandbox_error"
    assert result["error"]["reason"] == reason
    assert result["error"]["retryable"] is (reason == "timeout")
    assert client.messages[-1].type == types.MessageType.Warning
    assert reason in client.messages[-1].message


@pytest.mark.parametrize(
    "read",
    [
        "inputs.token",
        "ctx.auth",
        "(() => { try { return ctx.auth } catch (e) { return 'caught' } })()",
    ],
)
async def test_secret_reads_are_denied_and_never_shown(
    client: RelaviumClient, workspace: Workspace, read: str
) -> None:
    uri = workspace.open(f"secret-{len(read)}.relavium.yaml", workflow(read))
    workspace.write(f"secret-{len(read)}.samples.json", json.dumps({"inputs": {"token": SECRET}}))
    result = await run(client, uri, "calc")
    assert result["ok"] is False and result["error"]["reason"] == "secret_context"
    assert result["scope"]["values"]["secret_inputs"] == ["token"]
    assert result["scope"]["values"]["secret_ctx"] == ["auth"]
    assert SECRET not in json.dumps(result) and SECRET not in everything_said(client)


async def test_a_hang_is_killed_while_the_server_keeps_answering(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # a native loop QuickJS cannot interrupt: only the worker watchdog stops it
    uri = workspace.open("hang.relavium.yaml", workflow("new Array(2 ** 32 - 1).join()"))
    hang = asyncio.ensure_future(run(client, uri, "calc"))
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses and not hang.done()
    result = await hang
    assert result["error"]["reason"] == "timeout" and result["error"]["retryable"] is True
    after = workspace.open("after-hang.relavium.yaml", workflow("inputs.ticket + '!'"))
    assert (await run(client, after, "calc"))["value"] == "hello!"


async def test_queued_runs_do_not_starve_other_requests(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # More hanging runs than pygls' thread pool (min(32, cpus + 4)) has threads: a run waiting
    # for a sandbox worker must not hold a thread, or the stdin reader and analyses wait too.
    threads = min(32, (os.cpu_count() or 1) + 4)
    uri = workspace.open("many-hangs.relavium.yaml", workflow("(() => { while (true) {} })()"))
    hangs = [asyncio.ensure_future(run(client, uri, "calc")) for _ in range(threads + 2)]
    await asyncio.sleep(0.3)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses and not any(hang.done() for hang in hangs)
    results = await asyncio.gather(*hangs)
    assert {result["error"]["reason"] for result in results} == {"timeout"}


async def test_a_cancelled_run_answers_cancelled(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("cancel.relavium.yaml", workflow("(() => { while (true) {} })()"))
    request = asyncio.ensure_future(
        client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=RUN, arguments=[{"uri": uri, "node": "calc"}]),
            msg_id="cancel-me",
        )
    )
    await asyncio.sleep(0.3)
    client.cancel_request(types.CancelParams(id="cancel-me"))
    with pytest.raises(JsonRpcRequestCancelled):
        await request


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"node": "nope"}, "no node with id `nope`"),
        ({"node": "start"}, "has no expression to run"),
        ({"node": "calc", "scope": "missing.json"}, "no such file"),
    ],
)
async def test_runs_that_cannot_start_say_why(
    client: RelaviumClient, workspace: Workspace, arguments: dict[str, str], says: str
) -> None:
    uri = workspace.open("cannot-start.relavium.yaml", workflow("1"))
    result = await run(client, uri, **arguments)
    assert result["ok"] is False and says in result["error"]["message"]
    assert client.messages[-1].type == types.MessageType.Error


async def test_create_sample_scope_writes_a_sidecar_once(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("fresh.relavium.yaml", EXAMPLE)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CREATE, arguments=[{"uri": uri}])
    )
    sidecar = workspace.root / "fresh.samples.json"
    skeleton = json.loads(sidecar.read_text(encoding="utf-8"))
    assert result == {
        "created": True,
        "notes": skeleton["notes"],
        "path": str(sidecar),
        "uri": workspace.uri("fresh.samples.json"),
    }
    # a secret never goes into a samples file; the context reads this one, and a run without it
    # fails when it starts (resolve.ts resolveContext, HodeTech/Relavium 839f2bd): a placeholder
    assert skeleton["inputs"]["crm_token"] == "placeholder-not-a-secret"
    assert "input `crm_token` is secret: a placeholder is written" in " ".join(skeleton["notes"])
    assert skeleton["outputs"]["classify"] == {"severity": 0, "topic": ""}
    # computed in the worker pool as a dry run computes it: the escalated path's output node
    assert skeleton["outputs"]["done"] == {"decision": "approved"}
    log = "\n".join(m.message for m in client.log_messages)
    assert "\n".join(f"note: {note}" for note in skeleton["notes"]) in log
    assert client.shown_documents[-1].uri == workspace.uri("fresh.samples.json")
    # the skeleton is a valid sidecar: the run uses it
    assert (await run(client, uri, "route"))["scope"]["source"] == "sidecar"
    sidecar.write_text('{"outputs": {"classify": {"severity": 9}}}', encoding="utf-8")
    again = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CREATE, arguments=[{"uri": uri}])
    )
    assert again["created"] is False
    assert json.loads(sidecar.read_text(encoding="utf-8")) == {
        "outputs": {"classify": {"severity": 9}}
    }


async def test_create_sample_scope_says_why_it_cannot_write(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # a workflow whose folder was removed while it stays open in the editor
    uri = workspace.uri("gone/away.relavium.yaml")
    client.open(uri, EXAMPLE)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CREATE, arguments=[{"uri": uri}])
    )
    assert result["created"] is False
    assert str(workspace.root / "gone" / "away.samples.json") in result["message"]
    assert client.messages[-1].type == types.MessageType.Error
    assert result["message"] in client.messages[-1].message


@pytest.mark.parametrize("dangling", [True, False])
async def test_create_sample_scope_never_follows_a_planted_link(
    client: RelaviumClient, workspace: Workspace, tmp_path_factory: pytest.TempPathFactory,
    dangling: bool,
) -> None:
    """Issue 9 item 5: a repository ships `x.samples.json -> ../somewhere/.bash_profile`."""
    outside = tmp_path_factory.mktemp("outside") / ".bash_profile"
    if not dangling:
        outside.write_text("theirs\n", encoding="utf-8")
    name = f"planted-{client.profile}-{dangling}"
    uri = workspace.open(f"{name}.relavium.yaml", EXAMPLE)
    (workspace.root / f"{name}.samples.json").symlink_to(outside)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CREATE, arguments=[{"uri": uri}])
    )
    assert result["created"] is False
    assert str(workspace.root / f"{name}.samples.json") in result["message"]
    assert client.messages[-1].type == types.MessageType.Error
    if dangling:
        assert not outside.exists()
    else:
        assert outside.read_text(encoding="utf-8") == "theirs\n"


async def test_a_saved_workflow_runs_without_being_open(
    client: RelaviumClient, workspace: Workspace
) -> None:
    workspace.write("on-disk.relavium.yaml", workflow("inputs.ticket.toUpperCase()"))
    result = await run(client, workspace.uri("on-disk.relavium.yaml"), "calc")
    assert (result["ok"], result["value"]) == (True, "HELLO")


async def test_the_answer_carries_the_value_as_text_with_nulls_and_key_order(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("text.relavium.yaml", workflow("({ z: null, a: [null, 1], m: {} })"))
    result = await run(client, uri, "calc")
    assert result["text"] == '{"z": null, "a": [null, 1], "m": {}}'
    assert json.loads(result["scope"]["text"]) == result["scope"]["values"]
    assert '"auth": null' in result["scope"]["text"]  # a denied secret stays visible as null


async def test_a_samples_number_past_pythons_digit_limit_is_a_clear_refusal(
    client: RelaviumClient, workspace: Workspace
) -> None:
    # json.loads raises ValueError (not JSONDecodeError) past 4,300 digits: both run
    # commands answered internal_error
    uri = workspace.open("digits.relavium.yaml", workflow("1"))
    workspace.write("digits.json", '{"inputs": {"n": ' + "9" * 5000 + "}}")
    answers = [
        await run(client, uri, "calc", scope="digits.json"),
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="relavium.dryRunWorkflow", arguments=[{"uri": uri, "scope": "digits.json"}]
        )),
    ]
    for answer in answers:
        assert answer["ok"] is False and answer["error"]["code"] == "invalid_request"
        assert "digits.json: a number has more than 4,300 digits" in answer["error"]["message"]


async def test_a_dry_run_of_what_is_not_a_workflow_says_what_check_says(
    client: RelaviumClient, workspace: Workspace
) -> None:
    uri = workspace.open("scalar.relavium.yaml", "hello\n")
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="relavium.dryRunWorkflow", arguments=[{"uri": uri}]
    ))
    assert answer["ok"] is False and answer["error"]["message"].startswith(
        "nothing to dry-run: must be a mapping, not the string 'hello' (line 1)"
    )
