"""Diagnostics: pushed after each (debounced) analysis, or pulled by clients that support
`textDocument/diagnostic` and `workspace/diagnostic/refresh` — never both. Either way none go
out before the client's settings are in (see `server/lsp/features/configuration.py`), and a settings
change re-diagnoses every open document. A document the project configuration excludes gets no
analysis diagnostics (as `check` skips it, and as ruff's and ESLint's servers do), only those of a
dry run the user asked for; the log says why once per opening."""

from __future__ import annotations

from lsprotocol import types

from server.lsp import project_settings
from server.lsp.diagnostics import SOURCE, to_lsp_diagnostics
from server.lsp.document_uris import is_relavium_uri, uri_to_path
from server.lsp.documents import Snapshot
from server.lsp.dry_run import dry_run_diagnostics
from server.lsp.features import workspace_diagnostics
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.settings import Settings


def register(ls: RelaviumLanguageServer) -> None:
    explained: dict[str, int] = {}  # uri → the opening whose exclusion the log explained

    def analysis_diagnostics(snapshot: Snapshot, settings: Settings) -> list[types.Diagnostic]:
        config = ls.project_config
        if not project_settings.excluded_document(config, snapshot.uri):
            return to_lsp_diagnostics(snapshot, settings)
        state = ls.document(snapshot.uri)
        opening = state.opening if state is not None else -1
        if explained.get(snapshot.uri) != opening:
            explained[snapshot.uri] = opening
            assert config is not None
            # a warning: Neovim writes :LspLog from that level up by default
            ls.log_warning(
                f"relavium-lsp: no diagnostics for {uri_to_path(snapshot.uri)}: excluded by "
                f"`exclude` / `extend-exclude` in {config.path}")
        return []

    def publish(snapshot: Snapshot) -> None:
        # held back until the settings are in; settling them re-publishes (see `refresh`)
        if not ls.pull_diagnostics and ls.settings_settled.is_set():
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=snapshot.uri,
                    version=snapshot.version,
                    diagnostics=analysis_diagnostics(snapshot, ls.settings)
                    + dry_run_diagnostics(ls.document(snapshot.uri), snapshot.version),
                )
            )

    def clear(uri: str) -> None:
        explained.pop(uri, None)
        if not ls.pull_diagnostics:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    def refresh() -> None:
        if ls.pull_diagnostics:  # only clients with refresh support pull (server/lsp/protocol.py)
            ls.workspace_diagnostic_refresh(None)
            return
        for state in ls.documents.values():
            # a pending analysis publishes when it is done
            if state.latest is not None and state.latest_is_current:
                publish(state.latest)

    ls.on_analysis(publish)
    ls.on_dry_run(refresh)
    ls.on_close(clear)
    ls.on_settings_changed(refresh)

    @ls.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            # workspace diagnostics: set by pygls, as features/workspace_diagnostics.py is there
            identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    @guarded(empty=lambda: types.RelatedFullDocumentDiagnosticReport(items=[]))
    async def pull(
        ls: RelaviumLanguageServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        settings = await ls.settled_settings()
        snapshot = (
            await ls.fresh_snapshot(uri, model=False, debounced=True)
            if is_relavium_uri(uri) else None
        )
        state = ls.document(uri)
        if snapshot is None or state is None:
            # closed: under the workspace scope, its disk diagnostics (features/
            # workspace_diagnostics.py); vscode-languageclient pulls once more on close
            disk = await workspace_diagnostics.of(ls).closed_document_report(uri)
            if disk is not None:
                if params.previous_result_id == disk.result_id:
                    return types.RelatedUnchangedDocumentDiagnosticReport(result_id=disk.result_id)
                return types.RelatedFullDocumentDiagnosticReport(items=disk.items,
                                                                 result_id=disk.result_id)
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        run = state.current_dry_run
        result_id = (
            f"{state.opening}.{snapshot.version}.{state.latest_generation}"
            f".{ls.settings_generation}"
            f".{run.stamp if run is not None else 0}"
        )
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(
            items=analysis_diagnostics(snapshot, settings)
            + dry_run_diagnostics(state, snapshot.version),
            result_id=result_id,
        )

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    @guarded()
    def did_save(ls: RelaviumLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.save_document(params.text_document.uri)
