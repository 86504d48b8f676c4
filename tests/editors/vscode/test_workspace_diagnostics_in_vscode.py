"""Workspace diagnostics (#25) in the real VS Code (code-server + Chromium, the built .vsix, the
real server): with `relavium.diagnostics.scope: workspace`, the finding of a workflow never
opened is in the Problems panel, and the clean workflows beside it add nothing; the setting
switched back to `open` (the user's settings.json edited in VS Code and saved) takes it out
again."""

from __future__ import annotations

import json

import pytest

from tests.editors.vscode.conftest import LaunchVSCode
from tests.editors.vscode.driver import wait_until

pytestmark = pytest.mark.timeout(600)

CLEAN = """schema_version: '1.0'
workflow:
  id: {id}
  nodes:
    - {{ id: start, type: input }}
    - {{ id: shape, type: transform, transform: '({{ ok: true }})' }}
  edges:
    - {{ from: start, to: shape }}
"""
BROKEN = CLEAN.format(id="broken").replace("ok: true", "ok: run.outputs.strat")
FILES = {"flows/first.relavium.yaml": CLEAN.format(id="first"),
         "flows/second.relavium.yaml": CLEAN.format(id="second"),
         "flows/never-opened.relavium.yaml": BROKEN}


def test_a_file_never_opened_shows_its_finding_until_the_scope_is_open_again(
        launch_vscode: LaunchVSCode) -> None:
    vscode = launch_vscode(files=FILES, settings={"relavium.diagnostics.scope": "workspace"})
    # the extension starts on the folder (workspaceContains); no editor is opened
    problems = vscode.wait_for_problems(lambda found: any("strat" in p.message for p in found))
    vscode.screenshot("workspace-diagnostics")
    assert not vscode.page.locator(".tab").count()  # nothing open: read from disk
    [problem] = problems  # the clean files add nothing
    line = next(index for index, row in enumerate(BROKEN.splitlines(), 1) if "strat" in row)
    assert (problem.severity, problem.line) == ("Warning", line)
    files = vscode.page.locator(".markers-panel .monaco-list-row").all_inner_texts()
    assert any("never-opened.relavium.yaml" in row for row in files), files

    # as a user does: the user settings.json in an editor, changed and saved
    settings = json.loads((vscode.server.user_data_dir / "User" / "settings.json")
                          .read_text(encoding="utf-8"))
    vscode.run_command("Preferences: Open User Settings (JSON)")
    wait_until("the settings editor",
               lambda: vscode.page.locator('.tab.active[data-resource-name="settings.json"]')
               .count())
    vscode.replace_text(json.dumps({**settings, "relavium.diagnostics.scope": "open"}))
    vscode.save()
    wait_until("the workspace finding gone", vscode.problems, holds=lambda found: not found)
