"""`relavium.createSampleScope {"uri"}`: write a sidecar `<stem>.samples.json` skeleton next to
the workflow (never over an existing one, never through a symbolic link, never outside the
workspace folders: see `analysis.dryrun.samples.write_sidecar`) and open it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import from_fs_path, to_fs_path

from analysis.dryrun.launch import pool_evaluator
from analysis.dryrun.samples import SampleScopeError, existing_sidecar, write_sidecar
from analysis.dryrun.skeleton import sidecar_skeleton
from analysis.project.new_files import within
from server.lsp.documents import workspace_roots
from server.lsp.handlers import guarded
from server.lsp.language_server import CommandFailed, RelaviumLanguageServer

COMMAND = "relavium.createSampleScope"


def _failure(ls: RelaviumLanguageServer, message: str) -> dict[str, Any]:
    ls.show_message(f"Create sample scope: {message}", types.MessageType.Error)
    return {"created": False, "message": message}


def writable_roots(ls: RelaviumLanguageServer, workflow: Path) -> list[Path]:
    """Where a sidecar may be written: the workspace folders, else the workflow's own folder."""
    return [Path(root) for root in workspace_roots(ls.workspace)] or [workflow.parent]


def register(ls: RelaviumLanguageServer) -> None:
    @ls.command(COMMAND)
    @guarded(empty=lambda: {"created": False, "message": "internal error; see the server log"})
    async def create_sample_scope(ls: RelaviumLanguageServer, *args: Any) -> dict[str, Any]:
        argument = args[0] if args else None
        uri = argument.get("uri") if isinstance(argument, dict) else None
        if not isinstance(uri, str):
            return _failure(ls, 'expected one argument {"uri": "<workflow uri>"}')
        path = to_fs_path(uri)
        if path is None or not uri.startswith("file:"):
            return _failure(ls, "save the workflow to a file first; the sidecar sits next to it")
        try:
            result = await ls.command_analysis(uri)
        except CommandFailed as failure:
            return _failure(ls, str(failure))
        good = ls.last_good_snapshot(uri)
        usable = result if result.workflow is not None else good.result if good else None
        workflow = usable.workflow if usable is not None else None
        graph = usable.graph if usable is not None else None
        if workflow is None or graph is None:
            return _failure(ls, "fix the YAML syntax error first")
        roots = writable_roots(ls, Path(path))
        existing = existing_sidecar(Path(path))
        created = existing is None
        answer: dict[str, Any] = {"created": created}
        if existing is not None:
            if not within(existing, roots):
                return _failure(
                    ls, f"refusing to open {existing}: it links outside the workspace folder(s)"
                )
            target = existing
            ls.show_message(f"{target.name} already exists; opened it", types.MessageType.Info)
        else:
            # the computed outputs come from a dry run: its evaluations block, in the worker pool
            async with ls.sandbox_turns:
                skeleton = await asyncio.get_running_loop().run_in_executor(
                    ls.thread_pool, sidecar_skeleton, workflow, graph,
                    pool_evaluator(ls.sandbox_pool), lambda: False,
                    usable.file_agent if usable is not None else None,
                )
            try:
                target = write_sidecar(Path(path), skeleton.text, roots)
            except SampleScopeError as error:
                return _failure(ls, str(error))
            ls.show_message(f"Created {target.name}", types.MessageType.Info)
            ls.log("\n".join([f"created {target}", *(f"note: {n}" for n in skeleton.notes)]))
            answer["notes"] = skeleton.notes
        target_uri = str(from_fs_path(str(target)))
        if get_capability(ls.client_capabilities, "window.show_document.support", False):
            await ls.window_show_document_async(
                types.ShowDocumentParams(uri=target_uri, take_focus=True)
            )
        return {**answer, "path": str(target), "uri": target_uri}
