"""A "Dry-run workflow" lens above `nodes:` and a "Run with sample scope" lens above every
expression field (condition `expression`, transform `transform`, merge `merge_fn`), placed in
the live text even while the YAML is half-typed (served from the last good analysis, see
`server.serving`)."""

from __future__ import annotations

from lsprotocol import types

from server.handlers import guarded
from server.language_server import RelaviumLanguageServer
from server.serving import view_of

RUN_COMMAND = "relavium.runWithSampleScope"
TITLE = "▶ Run with sample scope"
DRY_RUN_COMMAND = "relavium.dryRunWorkflow"
DRY_RUN_TITLE = "▶ Dry-run workflow"


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @guarded(empty=list)
    async def code_lens(
        ls: RelaviumLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        uri = params.text_document.uri
        view = await view_of(ls, uri)
        if view is None:
            return []
        lenses = []
        body = view.workflow.body
        nodes = body.get("nodes") if body is not None else None
        nodes_key = view.client_range(*nodes.key.span) if nodes is not None else None
        if nodes_key is not None:
            command = types.Command(
                title=DRY_RUN_TITLE, command=DRY_RUN_COMMAND, arguments=[{"uri": uri}]
            )
            lenses.append(types.CodeLens(range=nodes_key, command=command))
        for field in view.workflow.expression_fields():
            entry = field.node.entry(field.name)
            key = view.client_range(*entry.key.span) if entry is not None else None
            if field.node.id is None or key is None:
                continue  # an id-less node cannot run; a key inside the edit has no place
            command = types.Command(
                title=TITLE, command=RUN_COMMAND, arguments=[{"uri": uri, "node": field.node.id}]
            )
            lenses.append(types.CodeLens(range=key, command=command))
        return lenses
