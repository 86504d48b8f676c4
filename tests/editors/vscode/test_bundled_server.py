"""The .vsix provisions its own server (issue 25, item 1): installed alone into a clean profile, on
a PATH with no relavium-lsp, opening a workflow installs the wheelhouse it carries into a
private venv in the extension's global storage with the user's Python, and the server it
starts reports the file's problems; without a suitable Python one message says what to do."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, relavium_lsp
from tests.editors.vscode.conftest import EXTENSION, LaunchVSCode
from tests.editors.vscode.driver import Problem

pytestmark = pytest.mark.timeout(900)

LEAK = EXAMPLES / "broken" / "ticket-triage-leak.relavium.yaml"
EXTENSION_ID = "relavium.relavium-lsp"
# A workspace's own server, which Restricted Mode must not run: it leaves a mark if it does.
TRAP = '#!/bin/sh\ntouch "$(dirname "$0")/ran"\nexit 1\n'


def scrubbed_env(bin_dir: Path, python: Path | None) -> dict[str, str]:
    """This process's environment with PATH cut down to `bin_dir` (node, and `python3` when
    given) and the system folders, and no virtual environment: no relavium-lsp anywhere."""
    bin_dir.mkdir()
    node = shutil.which("node")
    assert node is not None
    (bin_dir / "node").symlink_to(node)
    if python is not None:
        (bin_dir / "python3").symlink_to(python)
    path = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    assert shutil.which("relavium-lsp", path=path) is None
    kept = {key: value for key, value in os.environ.items()
            if key not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}}
    return {**kept, "PATH": path}


def test_a_clean_profile_installs_the_bundled_server_and_gets_diagnostics(
        launch_vscode: LaunchVSCode, tmp_path: Path) -> None:
    checked = relavium_lsp("check", "--no-config", "--format", "json", str(LEAK))
    expected = {(found["message"], found["range"]["start"]["line"] + 1)
                for found in json.loads(checked.stdout)}
    assert expected

    # The interpreter under this test's venv: a Python >= 3.11 without relavium-lsp installed.
    python = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    env = scrubbed_env(tmp_path / "bin", python)
    vscode = launch_vscode(
        files={LEAK.name: LEAK.read_text(encoding="utf-8"), ".venv/bin/relavium-lsp": TRAP},
        settings={"relavium.server.path": None}, env=env, trusted=False)
    trap = vscode.workspace / ".venv" / "bin" / "relavium-lsp"
    trap.chmod(0o755)
    vscode.open_file(LEAK.name)

    def all_reported(problems: list[Problem]) -> bool:
        return {(p.message, p.line) for p in problems} >= expected

    # The first start installs the wheelhouse (a venv and an offline pip install): minutes here.
    problems = vscode.wait_for_problems(all_reported, timeout=420)
    vscode.screenshot("bundled-server")
    assert {p.source for p in problems} == {"relavium-lsp"}
    assert not (trap.parent / "ran").exists(), "the untrusted workspace's .venv server ran"

    version = json.loads((EXTENSION / "package.json").read_text())["version"]
    environment = (vscode.server.user_data_dir / "User" / "globalStorage" / EXTENSION_ID
                   / "server" / version)
    log = vscode.extension_log()
    assert f"starting {environment / 'bin' / 'relavium-lsp'} serve --stdio (from bundled)" in log
    running = ".".join(map(str, sys.version_info[:3]))
    assert f"with python3 (Python {running}), offline" in log
    # Offline, from the package's own wheels, into the private environment only.
    installed = environment / "bin" / "relavium-lsp"
    assert installed.exists()
    assert "--no-index" in log


def test_without_a_suitable_python_one_message_says_what_to_do(
        launch_vscode: LaunchVSCode, tmp_path: Path) -> None:
    env = scrubbed_env(tmp_path / "bin", python=None)
    if any(shutil.which(name, path=env["PATH"]) for name in ("python3", "python")):
        # /usr/bin has a Python: hide it behind one too old for the server.
        old = tmp_path / "bin" / "python3"
        old.write_text('#!/bin/sh\necho "3.8.10 True"\n')
        old.chmod(0o755)
        (tmp_path / "bin" / "python").symlink_to(old)
    vscode = launch_vscode(files={LEAK.name: LEAK.read_text(encoding="utf-8")},
                           settings={"relavium.server.path": None}, env=env)
    vscode.open_file(LEAK.name)
    shown = vscode.wait_for_notification("Relavium needs Python 3.11 or newer")
    vscode.screenshot("no-python")
    assert "relavium.server.path" in shown
    assert "python3: it is Python 3.8.10" in shown or "python3: not found" in shown
