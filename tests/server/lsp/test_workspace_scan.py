"""What the server's start-up indexing lists (server/lsp/workspace_scan.py): exactly the files
`relavium-lsp check FOLDER` checks — the one walk both use — within its file and byte bounds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pygls.uris import from_fs_path

from analysis.project.config import ProjectConfig, load_config
from analysis.project.kinds import FileKind
from analysis.project.workspace import WorkspaceIndex
from server.lsp.workspace_scan import list_project_agents, read_agents, scan_folders
from tests.server.lsp.test_workspace_diagnostics import project  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parents[3]


def check(root: Path, output_format: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "server", "check", "--format", output_format,
                           "."], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode in (0, 1), done.stderr
    return done


def test_the_scan_lists_what_check_checks(project: Path) -> None:  # noqa: F811
    config = load_config(project / "relavium-lsp.toml")
    scan = scan_folders([(str(project), config)])
    listed = {file.path for file in scan.files.values()}
    # check names the files it reports on, and counts every file it checked
    reported = {os.path.abspath(project / report["path"])
                for report in json.loads(check(project, "json").stdout)}
    assert reported and reported <= listed
    assert f"{len(listed)} files checked" in check(project, "text").stderr
    assert {file.kind for file in scan.files.values()} == {FileKind.WORKFLOW, FileKind.AGENT}
    assert scan.limit is None
    assert any("linked.relavium.yaml" in note for note in scan.notes)  # a link out, skipped


def test_the_scan_reads_agent_files_into_their_project_index(project: Path) -> None:  # noqa: F811
    scan = scan_folders([(str(project), None)])
    index = WorkspaceIndex(str(project))
    assert read_agents(scan.files.values(), {str(project): index}.get) == 2
    list_project_agents({str(project): index})
    _, by_id = index.folder_agents(str(project))
    assert set(by_id) == {"helper", "broken"}


def test_the_scan_stops_at_its_file_bound_and_says_so(tmp_path: Path) -> None:
    for number in range(5):
        (tmp_path / f"w{number}.relavium.yaml").write_text("workflow: {}\n", encoding="utf-8")
    scan = scan_folders([(str(tmp_path), ProjectConfig(tmp_path))], max_files=3)
    assert [Path(file.path).name for file in scan.files.values()] == [
        "w0.relavium.yaml", "w1.relavium.yaml", "w2.relavium.yaml"]
    assert scan.limit is not None and "more than 3 Relavium files" in scan.limit


def test_the_scan_stops_at_its_byte_bound_and_says_so(tmp_path: Path) -> None:
    for number in range(4):
        (tmp_path / f"w{number}.relavium.yaml").write_text("x" * 100, encoding="utf-8")
    scan = scan_folders([(str(tmp_path), None)], max_bytes=250)
    assert len(scan.files) == 2 and scan.total_bytes == 200
    assert scan.limit is not None and "pass 250 bytes" in scan.limit


def test_nested_folders_list_a_file_once(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "w.relavium.yaml").write_text("workflow: {}\n", encoding="utf-8")
    scan = scan_folders([(str(tmp_path), None), (str(inner), None)])
    assert list(scan.files) == [str(from_fs_path(str(inner / "w.relavium.yaml")))]
