"""`relavium-lsp check`: lint workflow files, for CI and the terminal.

Directories are searched for `*.relavium.yaml|yml` and for YAML files under `.relavium/`
(hidden directories and node_modules are skipped otherwise); `-` reads stdin. Exit 0 without
errors, 1 with errors, 2 on usage or I/O errors. Many files are analysed in parallel processes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from analysis import analyze
from analysis.diagnostics import Severity
from analysis.files import is_workflow_path
from analysis.report import STDIN_PATH, FileReport, format_text, to_json, to_sarif
from server.commands import EXIT_FAILURE, EXIT_OK, EXIT_USAGE

NAME = "check"
HELP = "Check workflow files and print diagnostics."

STDIN = "-"
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories; - is stdin")


def find_workflow_files(directory: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(
            d for d in dirs
            if d not in SKIPPED_DIRS and (not d.startswith(".") or d == ".relavium")
        )
        for name in sorted(files):
            path = Path(root, name)
            # Judged on the absolute path: `check .` run inside a `.relavium/` folder must see
            # the folder its files are in (and `.relavium/..` is not inside it).
            # Regular files only: a FIFO or socket found in a walk would block the read forever.
            if is_workflow_path(Path(os.path.abspath(path))) and path.is_file():
                yield path


def _check_file(path: str) -> FileReport | str:
    """The file's report, or an I/O error message."""
    try:
        # utf-8-sig: a byte order mark is not a column, as editors and SARIF count them.
        with open(path, encoding="utf-8-sig", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        return f"{path}: cannot read: {error}"
    result = analyze(text, path)
    return FileReport(path, result.source, result.diagnostics)


def _check_stdin() -> FileReport | str:
    """Standard input's report; bytes that are not UTF-8 are an I/O error, as in a file."""
    try:
        text = sys.stdin.buffer.read().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        return f"{STDIN_PATH}: cannot read: {error}"
    result = analyze(text, None)
    return FileReport(STDIN_PATH, result.source, result.diagnostics)


def _inputs(paths: list[str]) -> tuple[list[str], list[str]]:
    """(files to check in order, I/O errors)."""
    files: list[str] = []
    errors: list[str] = []
    for raw in paths:
        if raw == STDIN:
            if STDIN in files:
                errors.append("-: standard input can be read only once; give '-' once")
            else:
                files.append(STDIN)
            continue
        path = Path(raw)
        if path.is_dir():
            found = [str(workflow) for workflow in find_workflow_files(path)]
            if not found:
                # Not an error (an empty folder checks clean), but never a silent success.
                print(f"relavium-lsp check: {raw}: no workflow files found (*.relavium.yaml, "
                      "*.relavium.yml, or YAML files under a .relavium/ folder)", file=sys.stderr)
            files.extend(found)
        elif path.exists():
            files.append(raw)
        else:
            errors.append(f"{raw}: no such file or directory")
    return files, errors


def _reports(files: list[str]) -> list[FileReport | str]:
    results: list[FileReport | str] = []
    on_disk = [path for path in files if path != STDIN]
    if len(on_disk) >= PARALLEL_THRESHOLD and (os.cpu_count() or 1) > 1:
        with ProcessPoolExecutor() as pool:
            checked = dict(zip(on_disk, pool.map(_check_file, on_disk, chunksize=4),
                               strict=True))
    else:
        checked = {path: _check_file(path) for path in on_disk}
    for path in files:
        if path == STDIN:
            results.append(_check_stdin())
        else:
            results.append(checked[path])
    return results


def _write_report(output_format: str, reports: list[FileReport]) -> None:
    if output_format == "json":
        output = json.dumps(to_json(reports), indent=2, ensure_ascii=False, default=str) + "\n"
    elif output_format == "sarif":
        output = json.dumps(to_sarif(reports), indent=2, ensure_ascii=False, default=str) + "\n"
    else:
        output = format_text(reports)
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left early (`| head`): no traceback, and nothing more to write there
        # (pointing stdout at devnull keeps the interpreter's final flush from failing too).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(args: argparse.Namespace) -> int:
    files, errors = _inputs(args.paths)
    reports: list[FileReport] = []
    for outcome in _reports(files):
        if isinstance(outcome, str):
            errors.append(outcome)
        else:
            reports.append(outcome)
    _write_report(args.format, reports)
    for error in errors:
        print(f"relavium-lsp check: {error}", file=sys.stderr)
    counts = {severity: 0 for severity in Severity}
    for report in reports:
        for diagnostic in report.diagnostics:
            counts[diagnostic.severity] += 1
    if args.format == "text":
        noun = "file" if len(reports) == 1 else "files"
        print(f"{len(reports)} {noun} checked: {counts[Severity.ERROR]} errors, "
              f"{counts[Severity.WARNING]} warnings", file=sys.stderr)
    if errors:
        return EXIT_USAGE
    return EXIT_FAILURE if counts[Severity.ERROR] else EXIT_OK
