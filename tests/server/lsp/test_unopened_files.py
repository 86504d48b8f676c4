"""Files the editor has not opened, read by the run commands (issue 21, item 8): only regular
files inside a workspace folder, read with the same bound as `check`. A link to /dev/zero read
until MemoryError and a FIFO blocked the command (and an executor thread) forever."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from analysis.document.yaml_profile import MAX_SOURCE_BYTES
from tests.conftest import CLEAN_WORKFLOW
from tests.server.conftest import RelaviumClient, Workspace

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX"),
]


async def dry_run(client: RelaviumClient, path: Path) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="relavium.dryRunWorkflow", arguments=[{"uri": str(from_fs_path(str(path)))}]))
    assert isinstance(result, dict), result
    return result


def refusal(result: dict[str, Any]) -> str:
    assert result["ok"] is False and result["error"]["code"] == "invalid_request", result
    return str(result["error"]["message"])


async def test_a_fifo_is_refused_without_blocking(
    client: RelaviumClient, workspace: Workspace
) -> None:
    fifo = workspace.root / "fifo.relavium.yaml"
    os.mkfifo(fifo)
    assert "is not a regular file" in refusal(await dry_run(client, fifo))
    linked = workspace.root / "to-fifo.relavium.yaml"
    linked.symlink_to(fifo)
    assert "is not a regular file" in refusal(await dry_run(client, linked))


async def test_a_link_out_of_the_workspace_is_refused_unread(
    client: RelaviumClient, workspace: Workspace, tmp_path: Path
) -> None:
    zero = workspace.root / "zero.relavium.yaml"
    zero.symlink_to("/dev/zero")
    assert "outside the workspace folders" in refusal(await dry_run(client, zero))
    outside = tmp_path / "elsewhere.relavium.yaml"
    outside.write_text(CLEAN_WORKFLOW, encoding="utf-8")
    linked = workspace.root / "elsewhere.relavium.yaml"
    linked.symlink_to(outside)
    for path in (outside, linked):
        assert "outside the workspace folders" in refusal(await dry_run(client, path))


async def test_an_oversized_file_is_refused_naming_the_limit(
    client: RelaviumClient, workspace: Workspace
) -> None:
    large = workspace.write("large.relavium.yaml", "#" * (MAX_SOURCE_BYTES + 1))
    message = refusal(await dry_run(client, large))
    assert f"a workflow may be at most {MAX_SOURCE_BYTES} bytes" in message


async def test_a_regular_file_in_the_workspace_still_runs(
    client: RelaviumClient, workspace: Workspace
) -> None:
    saved = workspace.write("saved.relavium.yaml", CLEAN_WORKFLOW)
    assert (await dry_run(client, saved))["ok"] is True
