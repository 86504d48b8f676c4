"""`relavium.runWithSampleScope {"uri", "node" | "position", "scope"?}`: evaluate a node's
expression with a sample scope in the sandbox worker pool — off the event loop, so a hang (killed
at the deadline) never stops the server answering — with `$/progress` while it runs, a
`window/showMessage` summary and a `window/logMessage` detail. Answers
`analysis.dryrun.presentation.DryRun`'s JSON. With a `position` (an LSP `Position` in the
negotiated encoding) the server finds the node there itself (`analysis.ide.locate`), so an editor
need not read the YAML."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException

from analysis.checks.analyze import AnalysisResult
from analysis.document.model import Workflow
from analysis.dryrun import launch
from analysis.dryrun.presentation import Annotation, DryRun
from analysis.dryrun.values import json_text, value_text
from analysis.ide.locate import node_at
from analysis.ide.outline import runnable
from server.lsp.document_uris import uri_to_path
from server.lsp.documents import project_root
from server.lsp.handlers import guarded
from server.lsp.language_server import CommandFailed, RelaviumLanguageServer
from server.lsp.positions import LineIndex
from server.lsp.protocol import JsonText
from server.lsp.serving import view_of

COMMAND = "relavium.runWithSampleScope"
USAGE = (
    'expected one argument {"uri": "<workflow uri>", "node": "<node id>", "scope"?: "<file>"} or'
    ' {"uri": "<workflow uri>", "position": {"line": <n>, "character": <n>}, "scope"?: "<file>"}'
)


class NotRunnable(CommandFailed):
    """The position is in no node with an expression; `runnable` lists the nodes that have one,
    in node order, so a client can offer them instead (VS Code's quick pick)."""

    def __init__(self, message: str, runnable: list[str]) -> None:
        super().__init__(f"{message}; nodes with an expression: {', '.join(runnable) or 'none'}")
        self.runnable = runnable


@dataclass(frozen=True)
class Shown:
    """A run as the editor is shown it, made in the thread the run ran in: nothing that writes
    out its values (megabytes, nested deeper than the event loop's serialiser goes) runs on the
    event loop."""

    ok: bool
    summary: str  # window/showMessage
    log: str  # window/logMessage
    answer: JsonText  # the command's result
    annotations: list[Annotation] = field(default_factory=list)  # a whole run's, in the document


def run_failure(ls: RelaviumLanguageServer, title: str, message: str) -> dict[str, Any]:
    """A run that could not start: not a sandbox result, so no `reason`."""
    ls.show_message(f"{title}: {message}", types.MessageType.Error)
    return {"ok": False, "error": {"code": "invalid_request", "message": message}}


def internal_error() -> dict[str, Any]:
    """A run command's answer when it failed unexpectedly (the traceback is in the log)."""
    return {"ok": False, "error": {"code": "internal_error", "message": "see the server log"}}


def _failure(ls: RelaviumLanguageServer, message: str) -> dict[str, Any]:
    return run_failure(ls, "Run with sample scope", message)


def _target(argument: dict[str, Any]) -> str | types.Position | None:
    """The node id the argument names, else its LSP `Position` (None: neither). `node` wins, so
    a `{uri, node}` argument is read exactly as before `position` existed."""
    if "node" in argument:
        node = argument["node"]
        return node if isinstance(node, str) else None
    given = argument.get("position")
    if not isinstance(given, dict):
        return None
    line, character = given.get("line"), given.get("character")
    if type(line) is not int or type(character) is not int or min(line, character) < 0:
        return None  # `type`, not isinstance: JSON's `true` is no line number
    return types.Position(line=line, character=character)


async def _node_at(
    ls: RelaviumLanguageServer, uri: str, result: AnalysisResult, position: types.Position
) -> str:
    """The id of the node with an expression at `position`; raises `NotRunnable` (or
    `CommandFailed` when no model of the workflow is known to locate in)."""
    where = f"line {position.line + 1}, character {position.character + 1}"
    view = await view_of(ls, uri)
    workflow: Workflow | None
    if view is not None:  # an open document: its last good model, placed in the live text
        workflow, offset, analysed = view.workflow, view.offset(position), view.result
    else:  # a saved file: the client's position is in the text read from disk
        workflow, analysed = result.workflow, result
        lines = LineIndex(result.source.text, ls.position_encoding, result.source.line_starts)
        offset = lines.client_offset(position)
    if workflow is None:
        raise CommandFailed(f"no node is known at {where}: the workflow does not parse")
    located = node_at(workflow, offset) if offset is not None else None
    node = located.node if located is not None else None
    if node is not None and node.id is not None and node.expression is not None:
        return node.id
    if node is None:
        refusal = f"{where} is in no node"
    elif node.id is None:
        refusal = f"the node at {where} has no id"
    else:
        refusal = f"node `{node.id}` (type {node.type}) at {where} has no expression to run"
    raise NotRunnable(refusal, [node_id for node_id, _ in runnable(analysed).expression_keys])


def explicit_scope(ls: RelaviumLanguageServer, given: str | None, workflow: str) -> str | None:
    """The command's `scope`, else the `sampleScope` setting; relative paths are taken from the
    workspace root (the workflow's folder when there is none)."""
    chosen = given or ls.settings.sample_scope
    if chosen is None:
        return None
    root = project_root(ls.workspace) or str(Path(workflow).parent)
    return str(Path(root, chosen))


def _with_texts(run: DryRun) -> dict[str, Any]:
    """The answer plus `text` (the value) and `scope.text` (the scope values) as compact JSON
    text: a client whose JSON decoding drops nulls or reorders keys (Neovim's) shows these."""
    answer = run.to_json()
    if run.outcome.ok:
        answer["text"] = value_text(run.outcome.value)
    answer["scope"]["text"] = value_text(run.sample.scope)
    return answer


def _run_node(
    ls: RelaviumLanguageServer, result: Any, path: str, node: str, explicit: str | None
) -> Shown:
    """Blocking: the node's ancestors, then the node, in the sandbox worker pool."""
    sample, sandbox_scope = launch.prepare(result, path, node, explicit, ls.sandbox_pool)
    run = launch.evaluate(ls.sandbox_pool, sample, sandbox_scope, path)
    return Shown(run.outcome.ok, run.summary(), run.detail(), JsonText(json_text(_with_texts(run))))


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=internal_error)
    async def run_with_sample_scope(
        ls: RelaviumLanguageServer, *args: Any
    ) -> dict[str, Any] | JsonText:
        argument = args[0] if len(args) == 1 else None
        if not isinstance(argument, dict):
            return _failure(ls, USAGE)
        uri, target, scope = argument.get("uri"), _target(argument), argument.get("scope")
        if not (isinstance(uri, str) and target is not None) or not (
            scope is None or isinstance(scope, str)
        ):
            return _failure(ls, USAGE)
        try:
            result = await ls.command_analysis(uri)
            node = target if isinstance(target, str) else await _node_at(ls, uri, result, target)
        except NotRunnable as failure:
            answer = _failure(ls, str(failure))
            answer["error"]["runnable"] = failure.runnable
            return answer
        except CommandFailed as failure:
            return _failure(ls, str(failure))
        path = uri_to_path(uri)
        explicit = explicit_scope(ls, scope, path)
        token = await _begin_progress(ls, node)
        try:
            async with ls.sandbox_turns:
                shown = await asyncio.get_running_loop().run_in_executor(
                    ls.thread_pool, _run_node, ls, result, path, node, explicit
                )
        except launch.DryRunError as error:
            return _failure(ls, str(error))
        finally:
            if token is not None:
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
        ls.show_message(
            shown.summary, types.MessageType.Info if shown.ok else types.MessageType.Warning
        )
        ls.log(shown.log)
        return shown.answer


async def _begin_progress(ls: RelaviumLanguageServer, node: str) -> str | None:
    if not get_capability(ls.client_capabilities, "window.work_done_progress", False):
        return None
    token = f"relavium-run-{uuid.uuid4().hex}"
    try:
        await ls.work_done_progress.create_async(token)
    except JsonRpcException as refused:  # progress is a courtesy: run without it
        ls.log_warning(f"the client refused a progress token ({refused}); running without one")
        return None
    ls.work_done_progress.begin(
        token,
        types.WorkDoneProgressBegin(title=f"Running {node} with a sample scope", cancellable=False),
    )
    return token
