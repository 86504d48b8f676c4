"""`relavium.workflowGraph {"uri", "format"?, "dryRun"?, "scope"?}`: the workflow's graph for
the editors' graph views (docs/server.md). `format` "json" (the default) answers the graph JSON
object, with positions in the negotiated position encoding; "html", "mermaid" and "dot" answer
`{"format", "text"}`. With `dryRun`, the whole workflow is dry-run first (as
`relavium.dryRunWorkflow`, without placing its results in the document) and each node carries its
status; `scope` is the samples, as an object (the samples file's content) or a samples file's
path. An open document whose YAML does not read is drawn from its last version that did, with
`"stale": true`. A request that cannot be answered gets `{"ok": false, "error": {"code",
"message"}}`, and no window message (a graph view asks at every edit and shows the reason)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from lsprotocol import types

from analysis.checks.analyze import AnalysisResult
from analysis.diagnostics import Position
from analysis.dryrun.launch import DryRunError, run_whole
from analysis.dryrun.samples import Samples, SampleScopeError, parse_samples
from analysis.dryrun.values import json_text
from analysis.ide.graph_formats import TEXT_FORMATS, render_text
from analysis.ide.workflow_graph import NotDrawable, WorkflowGraph, result_graph
from server.lsp.document_uris import uri_to_path
from server.lsp.features.run_with_sample_scope import explicit_scope, internal_error
from server.lsp.handlers import guarded
from server.lsp.language_server import CommandFailed, RelaviumLanguageServer
from server.lsp.positions import LineIndex
from server.lsp.protocol import JsonText

COMMAND = "relavium.workflowGraph"
USAGE = ('expected one argument {"uri": "<workflow uri>", "format"?: "json" | "html" | '
         '"mermaid" | "dot", "dryRun"?: true | false, "scope"?: {samples} | "<samples file>"}')
SCOPE_ARGUMENT = "the `scope` argument"


def _failure(message: str) -> dict[str, Any]:
    """No window/showMessage: a graph view asks again at every edit, and shows the reason."""
    return {"ok": False, "error": {"code": "invalid_request", "message": message}}


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


def _answer(model: WorkflowGraph, format_: str, lines: LineIndex, title: str,
            stale: bool) -> Any:
    # written out here: pygls's own conversion of a 500-node answer took most of a second
    if format_ == "json":
        # every unit counts one code point of an ASCII text (and UTF-32's always): no conversion
        same = lines.text.isascii() or lines.encoding == types.PositionEncodingKind.Utf32
        column = None if same else (lambda position: _client_column(lines, position))
        answer = model.to_json(column)
    else:
        answer = {"format": format_, "text": render_text(model, format_, title)}
    if stale:
        answer["stale"] = True
    return JsonText(json_text(answer))


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
            return _failure(USAGE)
        uri, format_, dry_run, scope = parsed
        try:
            snapshot, result = await ls.command_snapshot(uri)
        except CommandFailed as failure:
            return _failure(str(failure))
        good = ls.last_good_snapshot(uri) if snapshot is not None else None
        stale = (not dry_run and result.workflow is None and good is not None
                 and good.result.workflow is not None)
        if stale:  # half-way through typing: the last version whose YAML read
            assert good is not None
            snapshot, result = good, good.result
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
            return _failure(str(error))
        except asyncio.CancelledError:
            stop.set()  # the run stops before its next node
            raise
        title = f"{model.workflow_id or path} · workflow graph"
        return _answer(model, format_, lines, title, stale)
