"""`relavium.dryRunWorkflow {"uri", "scope"?}`: dry-run the whole workflow (`relavium-lsp run`
without `--node`) in the sandbox worker pool, answer its JSON, and place the results in the
document until the next edit: each node's value as an inlay hint after its id (full value in the
tooltip), skipped and not-run nodes as dimmed hint diagnostics with the reason, failures as
error diagnostics at the failing field. Clients without inlay hints get the summary in
`window/showMessage`; the full trace always goes to `window/logMessage`. Cancelling the request
stops the run before its next node. Everything that writes out the run's values (the answer's
JSON, the trace, the placements) is made in the thread the run ran in, never on the event loop."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from analysis.checks.analyze import AnalysisResult
from analysis.dryrun.launch import DryRunError, run_whole
from analysis.dryrun.presentation import LOG_VALUE_LIMIT, node_line, placements, summary_of
from analysis.dryrun.results import WorkflowRun
from analysis.dryrun.values import json_text
from sandbox import WorkerPool
from server.lsp.document_uris import uri_to_path
from server.lsp.documents import DryRunView
from server.lsp.features.run_with_sample_scope import (
    Shown,
    explicit_scope,
    internal_error,
    run_failure,
)
from server.lsp.handlers import guarded
from server.lsp.language_server import CommandFailed, RelaviumLanguageServer
from server.lsp.protocol import JsonText

COMMAND = "relavium.dryRunWorkflow"
USAGE = 'expected one argument {"uri": "<workflow uri>", "scope"?: "<samples file>"}'
_stamps = itertools.count(1)


def _failure(ls: RelaviumLanguageServer, message: str) -> dict[str, Any]:
    return run_failure(ls, "Dry-run workflow", message)


def _trace(run: WorkflowRun) -> str:
    answer = run.to_json()
    lines = [summary_of(run)]
    lines.extend(node_line(entry, LOG_VALUE_LIMIT) for entry in answer["nodes"])
    lines.extend(f"note: {note}" for note in run.notes)
    return "\n".join(lines)


def _run_and_show(
    result: AnalysisResult,
    path: str,
    explicit: str | None,
    pool: WorkerPool,
    cancelled: Callable[[], bool],
) -> Shown:
    """Blocking: the run, then everything that writes its values out."""
    run = run_whole(result, path, explicit, pool, cancelled)
    return Shown(run.ok, summary_of(run), _trace(run), JsonText(json_text(run.to_json())),
                 placements(run, result.source))


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=internal_error)
    async def dry_run_workflow(
        ls: RelaviumLanguageServer, *args: Any
    ) -> dict[str, Any] | JsonText:
        argument = args[0] if len(args) == 1 else None
        uri = argument.get("uri") if isinstance(argument, dict) else None
        scope = argument.get("scope") if isinstance(argument, dict) else None
        if not isinstance(uri, str) or not (scope is None or isinstance(scope, str)):
            return _failure(ls, USAGE)
        state = ls.document(uri)
        try:
            snapshot, result = await ls.command_snapshot(uri)
        except CommandFailed as failure:
            return _failure(ls, str(failure))
        path = uri_to_path(uri)
        stop = threading.Event()
        try:
            async with ls.sandbox_turns:
                shown = await asyncio.get_running_loop().run_in_executor(
                    ls.thread_pool, _run_and_show, result, path,
                    explicit_scope(ls, scope, path), ls.sandbox_pool, stop.is_set,
                )
        except DryRunError as error:
            return _failure(ls, str(error))
        except asyncio.CancelledError:
            stop.set()  # the thread stops before its next node
            raise
        ls.log(shown.log)
        if state is not None and snapshot is not None:
            state.dry_run = DryRunView(snapshot.version, snapshot, shown.annotations, next(_stamps))
            ls.dry_run_placed()
            if get_capability(ls.client_capabilities, "workspace.inlay_hint.refresh_support",
                              False):
                ls.workspace_inlay_hint_refresh(None)
        if state is None or not get_capability(
            ls.client_capabilities, "text_document.inlay_hint", None
        ):
            ls.show_message(
                shown.summary + " (details in the output log)",
                types.MessageType.Info if shown.ok else types.MessageType.Warning,
            )
        return shown.answer

    @ls.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @guarded(empty=list)
    async def inlay_hints(
        ls: RelaviumLanguageServer, params: types.InlayHintParams
    ) -> list[types.InlayHint]:
        state = ls.document(params.text_document.uri)
        run = state.current_dry_run if state is not None else None
        if run is None:
            return []
        hints = []
        for note in run.annotations:
            if note.label is None:
                continue
            position = run.snapshot.lines.to_client_position(note.at)
            if not _within(position, params.range):
                continue
            hints.append(types.InlayHint(
                position=position,
                label=note.label,
                tooltip=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value=f"```json\n{note.tooltip}\n```"
                ) if note.tooltip is not None and note.problem is None else note.tooltip,
                padding_left=True,
            ))
        return hints


def _within(position: types.Position, range_: types.Range) -> bool:
    start, end = range_.start, range_.end
    return (start.line, start.character) <= (position.line, position.character) <= (
        end.line, end.character
    )
