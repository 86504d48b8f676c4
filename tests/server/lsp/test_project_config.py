"""The server reads the project configuration `check` reads, from the workspace folder; editor
settings override it; an invalid file is a diagnostic on the file, and defaults apply. A real
server over stdio, started in a workspace folder that holds the configuration."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, client_capabilities

from tests.conftest import FINDINGS_WORKFLOW
from tests.server.conftest import (
    CLIENT_PROFILES,
    RelaviumClient,
    make_client,
    profile_capabilities,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

FINDINGS = FINDINGS_WORKFLOW
VALID = '[tool.relavium-lsp.rules]\nunknown-key = "off"\nunreachable-node = "error"\n'
INVALID = '[tool.relavium-lsp]\nrules = { unknown-key = "loud" }\n'
# The editor's setting for unreachable-node wins over the file's.
EDITOR = {"relavium": {"debounceMs": 0, "rules": {"unreachable-node": "hint"}}}


async def start(lsp_client: RelaviumClient, root: Path,
                capabilities: types.ClientCapabilities | None = None,
                root_uri: bool = True) -> None:
    """`root_uri=False`: the client names the folder in `workspaceFolders` alone, as LSP 3.6+
    allows (the root URI is deprecated)."""
    lsp_client.set_configuration(EDITOR)
    lsp_client.initialize_result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities or client_capabilities(CLIENT_PROFILES["vscode"]),
        initialization_options=EDITOR,
        root_uri=from_fs_path(str(root)) if root_uri else None,
        workspace_folders=[types.WorkspaceFolder(uri=str(from_fs_path(str(root))), name="w")],
    ))


def workspace_with(tmp_path_factory: pytest.TempPathFactory, pyproject: str) -> Path:
    root = tmp_path_factory.mktemp("configured")
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (root / "w.relavium.yaml").write_text(FINDINGS, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def valid_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace_with(tmp_path_factory, VALID)


@pytest.fixture(scope="module")
def invalid_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace_with(tmp_path_factory, INVALID)


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "server", "serve", "--stdio"],
                            client_factory=make_client)


@pytest_lsp.fixture(config=SERVER, scope="module")
async def configured(lsp_client: RelaviumClient, valid_root: Path) -> AsyncIterator[None]:
    await start(lsp_client, valid_root)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def configured_by_folders(lsp_client: RelaviumClient,
                                folders_root: Path) -> AsyncIterator[None]:
    await start(lsp_client, folders_root, root_uri=False)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def folders_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace_with(tmp_path_factory, VALID)


@pytest_lsp.fixture(config=SERVER, scope="module")
async def misconfigured(lsp_client: RelaviumClient, invalid_root: Path) -> AsyncIterator[None]:
    await start(lsp_client, invalid_root)
    yield
    await lsp_client.shutdown_session()


async def codes_and_levels(client: RelaviumClient, root: Path) -> list[tuple[str, int]]:
    uri = str(from_fs_path(str(root / "w.relavium.yaml")))
    client.open(uri, FINDINGS)
    return [(str(d.code), int(d.severity or 0)) for d in await client.diagnostics_for(uri)]


async def test_the_file_sets_rule_levels_under_the_editor_settings(
    configured: RelaviumClient, valid_root: Path
) -> None:
    found = await codes_and_levels(configured, valid_root)
    # unknown-key: off by the file; unreachable-node: error by the file, hint by the editor.
    assert found == [("unreachable-node", types.DiagnosticSeverity.Hint)]
    config_uri = str(from_fs_path(str(valid_root / "pyproject.toml")))
    published = configured.published.get(config_uri, [])
    assert all(not params.diagnostics for params in published)


async def test_a_client_naming_only_workspace_folders_gets_the_project_configuration(
    configured_by_folders: RelaviumClient, folders_root: Path
) -> None:
    # Without it the server used its defaults: unknown-key reported as an error.
    found = await codes_and_levels(configured_by_folders, folders_root)
    assert found == [("unreachable-node", types.DiagnosticSeverity.Hint)]


async def test_an_invalid_file_is_a_diagnostic_on_it_and_defaults_apply(
    misconfigured: RelaviumClient, invalid_root: Path
) -> None:
    config_uri = str(from_fs_path(str(invalid_root / "pyproject.toml")))
    published = await misconfigured.wait_for(
        lambda: misconfigured.published.get(config_uri), "diagnostics on pyproject.toml")
    [diagnostic] = published[-1].diagnostics
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start.line == 1
    assert "rules.unknown-key must be one of error, warning, information, hint, off" in (
        diagnostic.message)
    assert str(invalid_root / "pyproject.toml") in diagnostic.message
    found = await codes_and_levels(misconfigured, invalid_root)
    assert found == [("unknown-key", types.DiagnosticSeverity.Error),
                     ("unreachable-node", types.DiagnosticSeverity.Hint)]


@pytest.fixture(scope="module")
def excluding_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = workspace_with(tmp_path_factory, '[tool.relavium-lsp]\nextend-exclude = ["drafts/"]\n')
    (root / "drafts").mkdir()
    (root / "drafts" / "d.relavium.yaml").write_text(FINDINGS, encoding="utf-8")
    return root


@pytest_lsp.fixture(config=SERVER, params=list(CLIENT_PROFILES), scope="module")
async def excluding(
    request: pytest.FixtureRequest, lsp_client: RelaviumClient, excluding_root: Path
) -> AsyncIterator[None]:
    """Pushed to (neovim) and pulling (VS Code)."""
    lsp_client.profile = request.param
    await start(lsp_client, excluding_root, profile_capabilities(request.param))
    yield
    await lsp_client.shutdown_session()


async def test_a_document_the_project_excludes_gets_no_diagnostics_and_the_log_says_why(
    excluding: RelaviumClient, excluding_root: Path
) -> None:
    # As `check` skips the file when named (and as ruff's and ESLint's servers do).
    path = excluding_root / "drafts" / "d.relavium.yaml"
    draft = str(from_fs_path(str(path)))
    excluding.open(draft, FINDINGS)
    assert await excluding.diagnostics_for(draft) == []

    def explained() -> list[str]:
        return [m.message for m in excluding.log_messages if "no diagnostics for" in m.message]
    await excluding.wait_for(explained, "the log line")
    assert explained() == [f"relavium-lsp: no diagnostics for {path}: excluded by `exclude` / "
                           f"`extend-exclude` in {excluding_root / 'pyproject.toml'}"]
    # a warning: Neovim's :LspLog writes only warnings and errors by default (vim.lsp.log)
    assert {m.type for m in excluding.log_messages if "no diagnostics for" in m.message} == {
        types.MessageType.Warning}
    # Edited: still none, and said once per opening.
    excluding.replace_all(draft, FINDINGS + "# more\n")
    assert await excluding.diagnostics_for(draft) == []
    assert len(explained()) == 1
    # The same text outside the excluded folder is diagnosed; other features serve both.
    kept = str(from_fs_path(str(excluding_root / "w.relavium.yaml")))
    excluding.open(kept, FINDINGS)
    assert {str(d.code) for d in await excluding.diagnostics_for(kept)} == {
        "unknown-key", "unreachable-node"}
    symbols = await excluding.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=draft)))
    assert symbols
    excluding.close(draft)
    excluding.close(kept)


# Issue 21, item 7: tomllib recursed to RecursionError on this, which killed the `initialized`
# handler: no diagnostics at all for the workspace, not even invalid-configuration.
DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture(scope="module")
def deep_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace_with(tmp_path_factory, f"[project]\nweird = {DEEP}\n")


@pytest.fixture(scope="module")
def deep_ours_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace_with(tmp_path_factory, f"[tool.relavium-lsp]\nweird = {DEEP}\n")


@pytest_lsp.fixture(config=SERVER, scope="module")
async def deep(lsp_client: RelaviumClient, deep_root: Path) -> AsyncIterator[None]:
    await start(lsp_client, deep_root)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def deep_ours(lsp_client: RelaviumClient, deep_ours_root: Path) -> AsyncIterator[None]:
    await start(lsp_client, deep_ours_root)
    yield
    await lsp_client.shutdown_session()


async def test_a_deep_pyproject_without_our_table_leaves_diagnostics_working(
    deep: RelaviumClient, deep_root: Path
) -> None:
    found = await codes_and_levels(deep, deep_root)
    assert found == [("unknown-key", types.DiagnosticSeverity.Error),
                     ("unreachable-node", types.DiagnosticSeverity.Hint)]
    config_uri = str(from_fs_path(str(deep_root / "pyproject.toml")))
    assert not deep.published.get(config_uri)


async def test_a_deep_pyproject_with_our_table_is_an_invalid_configuration_diagnostic(
    deep_ours: RelaviumClient, deep_ours_root: Path
) -> None:
    config_uri = str(from_fs_path(str(deep_ours_root / "pyproject.toml")))
    published = await deep_ours.wait_for(
        lambda: deep_ours.published.get(config_uri), "diagnostics on pyproject.toml")
    [diagnostic] = published[-1].diagnostics
    assert diagnostic.code == "invalid-configuration"
    assert "arrays or inline tables are nested too deeply" in diagnostic.message
    found = await codes_and_levels(deep_ours, deep_ours_root)
    assert found == [("unknown-key", types.DiagnosticSeverity.Error),
                     ("unreachable-node", types.DiagnosticSeverity.Hint)]
