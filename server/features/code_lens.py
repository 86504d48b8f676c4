"""A "Run with sample scope" lens above every expression field (condition `expression`,
transform `transform`, merge `merge_fn`)."""

from __future__ import annotations

from lsprotocol import types

from server.handlers import guarded
from server.language_server import RelaviumLanguageServer

RUN_COMMAND = "relavium.runWithSampleScope"
TITLE = "▶ Run with sample scope"


def register(ls: RelaviumLanguageServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @guarded(empty=list)
    def code_lens(
        ls: RelaviumLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        snapshot = ls.last_good_snapshot(params.text_document.uri)
        if snapshot is None or snapshot.result.workflow is None:
            return []
        lenses = []
        for field in snapshot.result.workflow.expression_fields():
            node_id = field.node.id
            entry = field.node.entry(field.name)
            if node_id is None or entry is None:
                continue
            lines = snapshot.lines
            key = types.Range(
                start=lines.to_client_position(lines.position_at(entry.key.start)),
                end=lines.to_client_position(lines.position_at(entry.key.end)),
            )
            lenses.append(
                types.CodeLens(
                    range=key,
                    command=types.Command(
                        title=TITLE,
                        command=RUN_COMMAND,
                        arguments=[{"uri": snapshot.uri, "node": node_id}],
                    ),
                )
            )
        return lenses
