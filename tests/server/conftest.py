"""The shared end-to-end harness: a real `relavium-lsp serve --stdio` driven by pytest-lsp.

`client` is module-scoped and parametrised over the VS Code and Neovim capability profiles, so
every test module that uses it must run its tests in the module's event loop:

    pytestmark = pytest.mark.asyncio(loop_scope="module")

The server starts with `debounceMs: 0`. Each test should open its own document (use
`workspace.open(...)`, which writes the file into a per-module directory so sidecars and
`run` can find it) — the server is shared by the module's tests.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pygls.workspace import TextDocument
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

SERVER_COMMAND = [sys.executable, "-m", "server", "serve", "--stdio"]
CLIENT_PROFILES = {"vscode": "visual-studio-code@v1.65.2", "neovim": "neovim@v0.11.0"}
# What VS Code 1.67+ (the extension needs 1.91) adds to the 1.65 profile: pull diagnostics and
# `workspace/diagnostic/refresh`. Neovim 0.11 pulls without refresh support, so it is pushed to.
MODERN_VSCODE = {
    "textDocument": {"diagnostic": {"dynamicRegistration": True}},
    "workspace": {"diagnostics": {"refreshSupport": True}},
}
INITIAL_SETTINGS = {"relavium": {"debounceMs": 0}}
WAIT_SECONDS = 20.0


class RelaviumClient(LanguageClient):
    """pytest-lsp's client plus versioned diagnostics, document tracking and applyEdit."""

    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.applied_edits: list[types.ApplyWorkspaceEditParams] = []
        # per workspace/configuration answer, how many diagnostic refreshes had come before it
        self.configuration_answers: list[int] = []
        self.inlay_hint_refreshes = 0
        # what the server registered dynamically (client/registerCapability)
        self.registrations: list[types.Registration] = []
        self.documents: dict[str, TextDocument] = {}
        self.initialize_result: types.InitializeResult | None = None
        self.profile = ""
        self.root = Path()  # the workspace folder, set by the `client` fixture

    @property
    def pull_mode(self) -> bool:
        assert self.initialize_result is not None
        return self.initialize_result.capabilities.diagnostic_provider is not None

    @property
    def encoding(self) -> str:
        assert self.initialize_result is not None
        return str(
            self.initialize_result.capabilities.position_encoding
            or types.PositionEncodingKind.Utf16
        )

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.documents[uri] = TextDocument(
            uri,
            text,
            version=version,
            sync_kind=types.TextDocumentSyncKind.Incremental,
            position_codec=_codec(self.encoding),
        )
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="yaml", version=version, text=text
                )
            )
        )

    def change(self, uri: str, *changes: types.TextDocumentContentChangeEvent) -> int:
        """Send the changes as the next version; returns that version."""
        document = self.documents[uri]
        for change in changes:
            document.apply_change(change)
        document.version = (document.version or 0) + 1
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=document.version
                ),
                content_changes=list(changes),
            )
        )
        return document.version

    def replace_all(self, uri: str, text: str) -> int:
        return self.change(uri, types.TextDocumentContentChangeWholeDocument(text=text))

    def apply_text_edits(self, uri: str, edits: list[types.TextEdit]) -> int:
        """Apply a quick fix's edits as one didChange (last edit first, so ranges stay valid)."""
        ordered = sorted(
            edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
        )
        return self.change(
            uri,
            *(
                types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
                for e in ordered
            ),
        )

    async def quick_fixes(self, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
        actions = await self.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        return [action for action in actions or [] if isinstance(action, types.CodeAction)]

    def apply_action(self, uri: str, action: types.CodeAction) -> int:
        """Apply a code action's edit to the open document (as the editor would)."""
        assert action.edit is not None, action
        if action.edit.document_changes is not None:
            (change,) = action.edit.document_changes
            assert isinstance(change, types.TextDocumentEdit)
            assert change.text_document.version == self.documents[uri].version
            edits = [edit for edit in change.edits if isinstance(edit, types.TextEdit)]
        else:
            assert action.edit.changes is not None
            edits = list(action.edit.changes[uri])
        return self.apply_text_edits(uri, edits)

    def text(self, uri: str) -> str:
        return self.documents[uri].source

    def close(self, uri: str) -> None:
        self.documents.pop(uri, None)
        self.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    async def diagnostics_for(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics for the document's current version, pulled or pushed per profile."""
        version = self.documents[uri].version
        if self.pull_mode:
            report = await self.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport), report
            return list(report.items)
        published = await self.wait_for(
            lambda: next((p for p in self.published.get(uri, []) if p.version == version), None),
            f"publishDiagnostics for {uri} version {version}",
        )
        return list(published.diagnostics)

    async def wait_for(self, probe: Callable[[], Any], what: str) -> Any:
        deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
        while (found := probe()) is None or found is False:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)
        return found


def profile_capabilities(profile: str) -> types.ClientCapabilities:
    """The capabilities a profile's client sends; "vscode" is VS Code as the extension needs."""
    capabilities = client_capabilities(CLIENT_PROFILES[profile])
    if profile != "vscode":
        return capabilities
    converter = default_converter()
    raw = converter.unstructure(capabilities)
    for section, added in MODERN_VSCODE.items():
        raw.setdefault(section, {}).update(added)
    return converter.structure(raw, types.ClientCapabilities)


def _codec(encoding: str) -> Any:
    from pygls.workspace.position_codec import PositionCodec

    return PositionCodec(encoding)


def make_client(features: dict[str, Callable[..., Any]] | None = None) -> RelaviumClient:
    """A client with pytest-lsp's handlers, ours, and `features` overriding either."""
    client = RelaviumClient()

    def publish(client: RelaviumClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.setdefault(params.uri, []).append(params)

    def configuration(client: RelaviumClient, params: types.ConfigurationParams) -> list[Any]:
        client.configuration_answers.append(client.diagnostic_refresh_count)
        return [
            client.get_configuration(section=item.section, scope_uri=item.scope_uri)
            for item in params.items
        ]

    def apply_edit(
        client: RelaviumClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    def refresh_inlay_hints(client: RelaviumClient, params: None) -> None:
        client.inlay_hint_refreshes += 1

    def register_capability(client: RelaviumClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            types.WORKSPACE_APPLY_EDIT: apply_edit,
            types.WORKSPACE_CONFIGURATION: configuration,
            types.WORKSPACE_INLAY_HINT_REFRESH: refresh_inlay_hints,
            types.CLIENT_REGISTER_CAPABILITY: register_capability,
            **(features or {}),
        },
    )
    return client


class Workspace:
    """A per-module folder of workflow files the tests open in the shared server."""

    def __init__(self, root: Path, client: RelaviumClient) -> None:
        self.root = root
        self.client = client

    def uri(self, name: str) -> str:
        return str(from_fs_path(str(self.root / name)))

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return path

    def open(self, name: str, text: str) -> str:
        """Write the file and open it in the server; returns its URI."""
        self.write(name, text)
        uri = self.uri(name)
        self.client.open(uri, text)
        return uri


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client),
    params=list(CLIENT_PROFILES),
    scope="module",
)
async def client(
    request: pytest.FixtureRequest, lsp_client: RelaviumClient,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[None]:
    lsp_client.profile = request.param
    lsp_client.set_configuration(INITIAL_SETTINGS)
    # the workspace folder `workspace` writes into: the server reads a file the editor has not
    # opened only inside one
    lsp_client.root = tmp_path_factory.mktemp("workspace")
    lsp_client.initialize_result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=profile_capabilities(request.param),
            initialization_options=INITIAL_SETTINGS,
            workspace_folders=[types.WorkspaceFolder(
                uri=str(from_fs_path(str(lsp_client.root))), name="workspace")],
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def workspace(client: RelaviumClient) -> Workspace:
    return Workspace(client.root, client)
