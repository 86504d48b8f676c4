"""`relavium.workflowGraph {"uri", "format"?, "dryRun"?, "scope"?}`: the workflow's graph for
the editors' graph views (docs/server.md). `format` "json" (the default) answers the graph JSON
object, with positions in the negotiated position encoding; "html", "mermaid" and "dot" answer
`{"format", "text"}`. With `dryRun`, the whole workflow is dry-run first (as
`relavium.dryRunWorkflow`, without placing its results in the document) and each node carries its
status; `scope` is the samples, as an object (the samples file's content) or a samples file's
path. A request that cannot be answered gets `{"ok": false, "error": {"code", "message"}}`."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from analysis.checks.analyze import AnalysisResult
from analysis.diagnostics import Position
from analysis.dryrun.launch import DryRunError, run_whole
from analysis.dryrun.samples import Samples, SampleScopeError, parse_samples
from analysis.dryrun.values import json_text
from analysis.ide.graph_formats import TEXT_FORMATS, render_text
from analysis.ide.workflow_graph import NotDrawable, WorkflowGraph, result_graph
from server.lsp.documents import uri_to_path
from server.lsp.features.run_with_sample_scope import explicit_scope, internal_error, run_failure
from server.lsp.handlers import guarded
from server.lsp.language_server import CommandFailed, RelaviumLanguageServer
from server.lsp.positions import LineIndex
from server.lsp.protocol import JsonText

COMMAND = "relavium.workflowGraph"
USAGE = ('expected one argument {"uri": "<workflow uri>", "format"?: "json" | "html" | '
         '"mermaid" | "dot", "dryRun"?: true | false, "scope"?: {samples} | "<samples file>"}')
SCOPE_ARGUMENT = "the `scope` argument"


def _failure(ls: RelaviumLanguageServer, message: str) -> dict[str, Any]:
    return run_failure(ls, "Workflow graph", message)


def _parsed(argument: Any) -> tuple[str, str, bool, Any] | None:
    """(uri, format, dryRun, scope) from the argument, None when it is not as USAGE says."""
    if not isinstance(argument, dict):
        return None
    uri, format_ = argument.get("uri"), argument.get("format", "json")
    dry_run, scope = argument.get("dryRun", False), argument.get("scope")
    if (not isinstance(uri, str) or format_ not in TEXT_FORMATS
            or not isinstance(dry_run, bool)
            or not (scope is None or isinstance(scope, str | dict))):
        return None
    return uri, format_, dry_run, scope


def _answer(model: WorkflowGraph, format_: str, lines: LineIndex, title: str) -> Any:
    # written out here: pygls's own conversion of a 500-node answer took most of a second
    if format_ == "json":
        return JsonText(json_text(model.to_json(lambda position: _client_column(lines, position))))
    return JsonText(json_text({"format": format_, "text": render_text(model, format_, title)}))


def _client_column(lines: LineIndex, position: Position) -> int:
    return lines.to_client_position(position).character


def _drawn(result: AnalysisResult, path: str, scope: str | dict[str, Any] | None,
           dry_run: bool, ls: RelaviumLanguageServer,
           stop: threading.Event) -> WorkflowGraph:
    """Blocking: the dry run when asked for (bounded as every dry run is), then the model."""
    model = result_graph(result)  # a file with nothing to draw is refused before any run
    if not dry_run:
        return model
    samples: Samples | None = None
    if isinstance(scope, dict):
        samples = parse_samples(json.dumps(scope), SCOPE_ARGUMENT, "explicit", is_json=True)
    explicit = explicit_scope(ls, scope, path) if not isinstance(scope, dict) else None
    run = run_whole(result, path, explicit, ls.sandbox_pool, stop.is_set, samples)
    return result_graph(result, run)


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=internal_error)
    async def workflow_graph(ls: RelaviumLanguageServer, *args: Any) -> Any:
        parsed = _parsed(args[0]) if len(args) == 1 else None
        if parsed is None:
            return _failure(ls, USAGE)
        uri, format_, dry_run, scope = parsed
        state = ls.document(uri)
        try:
            snapshot = await ls.fresh_snapshot(uri) if state is not None else None
            result = snapshot.result if snapshot is not None else await ls.command_analysis(uri)
        except CommandFailed as failure:
            return _failure(ls, str(failure))
        lines = (snapshot.lines if snapshot is not None else
                 LineIndex(result.source.text, ls.position_encoding, result.source.line_starts))
        path = uri_to_path(uri)
        stop = threading.Event()
        try:
            if dry_run:
                async with ls.sandbox_turns:
                    model = await asyncio.get_running_loop().run_in_executor(
                        ls.thread_pool, _drawn, result, path, scope, True, ls, stop)
            else:
                model = _drawn(result, path, scope, False, ls, stop)
        except (NotDrawable, DryRunError, SampleScopeError) as error:
            return _failure(ls, str(error))
        except asyncio.CancelledError:
            stop.set()  # the run stops before its next node
            raise
        title = f"{model.workflow_id or path} · workflow graph"
        return _answer(model, format_, lines, title)
