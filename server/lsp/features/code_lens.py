"""A "Dry-run workflow" lens above `nodes:` and a "Run with sample scope" lens above every
expression field (condition `expression`, transform `transform`, merge `merge_fn`), placed in
the live text even while the YAML is half-typed (served from the last good analysis, see
`server.lsp.serving`)."""

from __future__ import annotations

from functools import partial

from lsprotocol import types

from analysis.ide.outline import Runnable, runnable
from server.lsp.handlers import guarded
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.serving import View, placed_answer

RUN_COMMAND = "relavium.runWithSampleScope"
TITLE = "▶ Run with sample scope"
DRY_RUN_COMMAND = "relavium.dryRunWorkflow"
DRY_RUN_TITLE = "▶ Dry-run workflow"


def _lenses(uri: str, view: View, places: Runnable) -> list[types.CodeLens]:
    lenses = []
    nodes_key = (
        view.client_range(*places.nodes_key) if places.nodes_key is not None else None
    )
    if nodes_key is not None:
        command = types.Command(
            title=DRY_RUN_TITLE, command=DRY_RUN_COMMAND, arguments=[{"uri": uri}]
        )
        lenses.append(types.CodeLens(range=nodes_key, command=command))
    for node, span in places.expression_keys:
        key = view.client_range(*span)
        if key is None:
            continue  # a key inside the edit has no place
        command = types.Command(
            title=TITLE, command=RUN_COMMAND, arguments=[{"uri": uri, "node": node}]
        )
        lenses.append(types.CodeLens(range=key, command=command))
    return lenses


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @guarded(empty=list)
    async def code_lens(
        ls: RelaviumLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        uri = params.text_document.uri
        return await placed_answer(ls, uri, runnable, partial(_lenses, uri)) or []
