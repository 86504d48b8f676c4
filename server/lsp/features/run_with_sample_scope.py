"""`relavium.runWithSampleScope {"uri", "node", "scope"?}`: evaluate a node's expression with a
sample scope in the sandbox worker pool — off the event loop, so a hang (killed at the deadline)
never stops the server answering — with `$/progress` while it runs, a `window/showMessage`
summary and a `window/logMessage` detail. Answers `analysis.dryrun.presentation.DryRun`'s JSON."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException

from analysis.dryrun import launch
from analysis.dryrun.presentation import DryRun
from analysis.dryrun.values import value_text
from server.lsp.documents import uri_to_path
from server.lsp.handlers import guarded
from server.lsp.language_server import CommandFailed, RelaviumLanguageServer

COMMAND = "relavium.runWithSampleScope"
USAGE = 'expected one argument {"uri": "<workflow uri>", "node": "<node id>", "scope"?: "<file>"}'


def run_failure(ls: RelaviumLanguageServer, title: str, message: str) -> dict[str, Any]:
    """A run that could not start: not a sandbox result, so no `reason`."""
    ls.show_message(f"{title}: {message}", types.MessageType.Error)
    return {"ok": False, "error": {"code": "invalid_request", "message": message}}


def internal_error() -> dict[str, Any]:
    """A run command's answer when it failed unexpectedly (the traceback is in the log)."""
    return {"ok": False, "error": {"code": "internal_error", "message": "see the server log"}}


def _failure(ls: RelaviumLanguageServer, message: str) -> dict[str, Any]:
    return run_failure(ls, "Run with sample scope", message)


def explicit_scope(ls: RelaviumLanguageServer, given: str | None, workflow: str) -> str | None:
    """The command's `scope`, else the `sampleScope` setting; relative paths are taken from the
    workspace root (the workflow's folder when there is none)."""
    chosen = given or ls.settings.sample_scope
    if chosen is None:
        return None
    root = ls.workspace.root_path or str(Path(workflow).parent)
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
) -> DryRun:
    """Blocking: the node's ancestors, then the node, in the sandbox worker pool."""
    sample, sandbox_scope = launch.prepare(result, path, node, explicit, ls.sandbox_pool)
    return launch.evaluate(ls.sandbox_pool, sample, sandbox_scope, path)


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=internal_error)
    async def run_with_sample_scope(ls: RelaviumLanguageServer, *args: Any) -> dict[str, Any]:
        argument = args[0] if len(args) == 1 else None
        if not isinstance(argument, dict):
            return _failure(ls, USAGE)
        uri, node, scope = argument.get("uri"), argument.get("node"), argument.get("scope")
        if not (isinstance(uri, str) and isinstance(node, str)) or not (
            scope is None or isinstance(scope, str)
        ):
            return _failure(ls, USAGE)
        try:
            result = await ls.command_analysis(uri)
        except CommandFailed as failure:
            return _failure(ls, str(failure))
        path = uri_to_path(uri)
        explicit = explicit_scope(ls, scope, path)
        token = await _begin_progress(ls, node)
        try:
            async with ls.sandbox_turns:
                run = await asyncio.get_running_loop().run_in_executor(
                    ls.thread_pool, _run_node, ls, result, path, node, explicit
                )
        except launch.DryRunError as error:
            return _failure(ls, str(error))
        finally:
            if token is not None:
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
        ls.show_message(
            run.summary(),
            types.MessageType.Info if run.outcome.ok else types.MessageType.Warning,
        )
        ls.log(run.detail())
        return _with_texts(run)


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
