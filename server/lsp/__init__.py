"""The pygls language server: protocol glue only, the analysis itself is `analysis/`.

How the server is put together
------------------------------
Each of these imports only the ones before it: `boot`, `worker`, `session`, `protocol`,
`language_server`, `features`.

- `boot/` (stdlib only, loaded before anything else): `transport` reads and checks JSON-RPC frames
  (`FramePump`: from the time `initialize` is answered) and hands them to a `Dispatcher` (the
  loaded server's protocol); `early_initialize` answers the client's `initialize` from
  `capabilities.json` before pygls is imported; `early_open` tells a `didOpen` read meanwhile,
  which `serve` sends to the analysis process at once when the document is large.
- `worker/`: the analysis process, where large documents are diagnosed: `spawn` starts it (the
  first one as soon as `initialize` is answered, beside the server's loading), `client` is the
  server's side (`AnalysisProcess`), `main` the worker's own code, `wire` the messages between
  them and `framing` how they are framed. `analysis_queue` runs the analyses done in the server
  process on threads of their own.
- `document_uris`: which URIs are Relavium documents, and their paths (loads without pygls'
  server or lsprotocol, for `serve`).
- `session.Session`: one open document's text (`text_sync` applies the client's edits), versions
  and snapshots, and the state machine that analyses each version (debounce, schedule, cancel,
  a model on demand); it reaches the server only through `SessionHost`.
- `language_server.RelaviumLanguageServer` (a pygls `LanguageServer`) holds what documents share:
  the open documents' sessions (`ls.documents`, uri → `Session`), the settings (`ls.settings`),
  whether diagnostics are pulled (`ls.pull_diagnostics`), the analysis threads and process, the
  sandbox's workers. `create_server()` builds it and registers every feature module.
- `protocol.RelaviumProtocol` does text sync (LSP line semantics, clamped out-of-range edits) and
  negotiates push vs pull diagnostics, telling the server through `ServerHooks`. Only
  Relavium documents are kept (`document_uris.is_relavium_uri`: workflows and agent files, as
  `analysis.project.kinds` tells them); for any other URI `ls.document(uri)` is None and
  features answer empty.
- `diagnostics` converts analysis diagnostics to LSP ones, at most `MAX_DIAGNOSTICS` a document.
- The workspace agent index (`analysis.project.workspace`): `ls.workspace_index(uri)` is the
  index of the project a file is in (one per project, None outside any), which analyses and
  `ls.agent_resolution(uri, workflow)` (hover, definition, completion, references) resolve
  `agent_ref`s with; open agent files' buffers feed it, and `features/watched_files` (or, for a
  client that cannot watch, each open/save) tells it of changes on disk (docs/server.md).
- Start-up indexing and workspace diagnostics: after `initialized`,
  `features/workspace_diagnostics` runs `workspace_indexing` (progress) over `workspace_scan`
  (`check`'s walk of each workspace folder; the agent files read into their indexes), then, under
  `relavium.diagnostics.scope: "workspace"`, analyses every file not open from disk, behind the
  open documents, for `workspace/diagnostic` or publishing.

Adding a feature
----------------
Create `server/lsp/features/<feature>.py` with a `register(ls)` function; `create_server()` imports
every module in that package (no list to edit). Register handlers inside it, each wrapped in
`guarded(empty)` so a bug answers the empty result instead of an error::

    def register(ls: RelaviumLanguageServer) -> None:
        @ls.feature(types.TEXT_DOCUMENT_HOVER)
        @guarded()
        def hover(ls: RelaviumLanguageServer, params: types.HoverParams) -> types.Hover | None:
            snapshot = ls.last_good_snapshot(params.text_document.uri)
            if snapshot is None:
                return None
            position = snapshot.lines.from_client_position(params.position)  # → code points
            ...
            return types.Hover(contents=..., range=snapshot.lines.to_client_range(range_))

A new feature changes the capabilities announced at `initialize`: regenerate
`server/lsp/boot/capabilities.json` with `python -m server.lsp.capabilities` (the answer sent
before the server is loaded; tests/server/lsp/test_early_initialize.py fails until it matches).

Getting a document's analysis
-----------------------------
- `ls.last_good_snapshot(uri)`: the newest analysis whose YAML parsed (`snapshot.is_good`) — serve
  completion/hover/navigation from it while the user is half-way through typing.
- `await ls.fresh_snapshot(uri)`: the analysis of the current text (skips a pending debounce).
- `await server.lsp.serving.placed_answer(ls, uri, question, place)`: for what an editor asks after
  every edit (outline, folds, tokens, lenses): `question(result)` as plain data, computed in
  the analysis process for a large document (its model is there), then `place(view, answer)`.
A `Snapshot` has `uri`, `version`, `text`, `result` (`analysis.AnalysisResult`) and `lines`.
Positions in `result` refer to `snapshot.text`, never to the live text; when the snapshot is older
than the text (`snapshot.version != ls.document(uri).version`), positions from the client are in
the live text's coordinates — map them with `ls.document(uri)` text if you need exactness.

Positions
---------
`analysis/` speaks 0-based lines and code-point columns. `snapshot.lines` (a
`server.lsp.positions.LineIndex` in the negotiated encoding — utf-16 unless the client offered
utf-8/utf-32) converts: `to_client_position/range` (code points → client units),
`from_client_position/range` (client units → code points, clamped), `offset(position)` and
`position_at(offset)` for code-point offsets.

Messages and logs go to stderr or the client (`ls.log`, `ls.log_warning`, `ls.show_message`),
never stdout: stdout carries the protocol.
"""
