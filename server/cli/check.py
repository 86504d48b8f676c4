"""`relavium-lsp check`: lint workflow files, for CI and the terminal (docs/cli.md).

Directories are searched for `*.relavium.yaml|yml` and for YAML files under `.relavium/`
(hidden directories and node_modules are skipped otherwise; a walk never leaves its folder through
a link); `-` reads stdin. Exit 0 without errors, 1 with errors, 2 on usage or I/O errors (a file
or a folder that cannot be read among them). Many files are analysed in parallel processes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import stat
import sys
from pathlib import Path

from analysis.checks.analyze import AnalysisResult, analyze
from analysis.diagnostics import Severity
from analysis.document.display import escape_json_text, escape_line
from analysis.document.source import SourceText
from analysis.document.yaml_profile import too_large
from analysis.project.config import (
    ConfigError,
    ProjectConfig,
    find_config,
    load_config,
    with_rule_levels,
)
from analysis.project.files import SourceTooLarge, read_bounded, read_source, walk_workflow_files
from server.cli import fix as fixing
from server.cli.console import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from server.cli.formats import (
    STDIN_PATH,
    FileReport,
    format_github,
    format_text,
    summary_line,
    to_json,
    to_sarif,
)
from server.cli.project_agents import workspace_of

NAME = "check"
HELP = "Check workflow files and print diagnostics."

STDIN = "-"
# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=("text", "json", "sarif", "github"), default="text",
        help="text (1-based code-point columns), json (0-based lines, UTF-16 columns, as LSP), "
             "sarif (code scanning) or github (Actions annotations); see docs/cli.md")
    config = parser.add_mutually_exclusive_group()
    config.add_argument(
        "--config", metavar="FILE", type=Path,
        help="the project configuration to use (default: the first .relavium-lsp.toml, "
             "relavium-lsp.toml or pyproject.toml with [tool.relavium-lsp] found walking up from "
             "each PATH); see docs/configuration.md")
    config.add_argument("--no-config", action="store_true",
                        help="ignore project configuration files; use the defaults")
    parser.add_argument(
        "--jobs", type=_job_count, default=None, metavar="N",
        help="check files in N processes (default: one per CPU; 1 checks them one by one); the "
             "output and exit code are the same whatever N is")
    parser.add_argument("--no-gitignore", dest="gitignore", action="store_false",
                        help="search folders without skipping what .gitignore files ignore")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories; - is stdin")
    fixing.add_arguments(parser)


# The last file's analysis, kept to the end: a check exits without freeing it
# (server.cli.main.program), which spares freeing a large workflow's hundreds of thousands of
# objects one by one (0.03 s at 5,000 nodes). An earlier file's is freed before the next file is
# analysed, so no two are held.
_last_analysis: list[AnalysisResult] = []


def _report(text: str, path: str | None, shown_as: str) -> FileReport:
    _last_analysis.clear()
    result = analyze(text, path, workspace=workspace_of(path))
    _last_analysis.append(result)
    return FileReport(shown_as, result.source, result.diagnostics)


def _too_large_report(shown_as: str, error: SourceTooLarge) -> FileReport:
    source = SourceText("")
    return FileReport(shown_as, source, [too_large(source, error.size)])


def _check_file(path: str) -> FileReport | str:
    """The file's report, or an I/O error message."""
    try:
        text = read_source(path)
    except SourceTooLarge as error:
        return _too_large_report(path, error)
    except (OSError, UnicodeDecodeError) as error:
        return f"{path}: cannot read: {error}"
    return _report(text, path, path)


def _check_stdin() -> FileReport | str:
    """Standard input's report; bytes that are not UTF-8 are an I/O error, as in a file."""
    try:
        text = read_bounded(sys.stdin.buffer, None)
    except SourceTooLarge as error:
        return _too_large_report(STDIN_PATH, error)
    except (OSError, UnicodeDecodeError) as error:
        return f"{STDIN_PATH}: cannot read: {error}"
    return _report(text, None, STDIN_PATH)


class _Configs:
    """The project configuration for each checked path, each file loaded once."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._chosen = None if args.no_config or args.config is None else load_config(args.config)
        self._off = args.no_config
        self._loaded: dict[Path, ProjectConfig] = {}

    def for_path(self, path: Path) -> ProjectConfig:
        if self._chosen is not None:
            return self._chosen
        found = None if self._off else find_config(path)
        if found is None:
            return ProjectConfig(root=Path(os.path.abspath(path)))
        if found not in self._loaded:
            self._loaded[found] = load_config(found)
        return self._loaded[found]


def _inputs(
    paths: list[str], configs: _Configs, gitignore: bool
) -> tuple[list[tuple[str, ProjectConfig]], list[str]]:
    """(files to check in order with their configuration, I/O errors); raises ConfigError."""
    files: list[tuple[str, ProjectConfig]] = []
    errors: list[str] = []
    for raw in paths:
        if raw == STDIN:
            if any(path == STDIN for path, _ in files):
                errors.append("-: standard input can be read only once; give '-' once")
            else:
                files.append((STDIN, configs.for_path(Path.cwd())))
            continue
        path = Path(raw)
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
            # Finding the configuration looks into the folder and the folders above it.
            config = configs.for_path(path)
        except OSError as error:
            errors.append(_unreadable(raw, error))
            continue
        if is_dir:
            walk = walk_workflow_files(path, config.excludes, gitignore)
            for note in walk.skipped:
                _note(note)
            errors.extend(walk.unreadable)
            if not walk.files and not walk.unreadable:
                # Not an error (an empty folder checks clean), but never a silent success.
                _note(f"{raw}: no Relavium files found (*.relavium.yaml, *.agent.yaml, or YAML "
                      "files under a .relavium/ folder, not excluded)")
            files.extend((str(found), config) for found in walk.files)
        elif config.excludes(path):
            # pre-commit and editors name files one by one: the project's excludes hold.
            _note(f"{raw}: skipped: excluded by {config.path}")
        else:
            # Named explicitly: read even through a link or from a pipe (`<(...)`).
            files.append((raw, config))
    return files, errors


def _unreadable(raw: str, error: OSError) -> str:
    """`PATH: reason` for a path that cannot be looked at (missing, a link loop, in a folder this
    user may not enter), naming the file that failed when it is not PATH itself."""
    reason = (error.strerror or type(error).__name__).lower()
    if error.filename is not None and Path(error.filename) != Path(raw):
        reason += f" ({error.filename})"
    return f"{raw}: {reason}"


def _note(message: str) -> None:
    print(escape_line(f"relavium-lsp check: {message}"), file=sys.stderr)


def _job_count(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes, 1 or more, got "
                                         f"{text!r}")
    return jobs


def cpu_count() -> int:
    """The CPUs this process may run on (a container's or taskset's limit, not the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _reports(files: list[str], jobs: int | None) -> list[FileReport | str]:
    """Each file's report in the order given; `jobs` None sizes the pool to the CPUs and checks
    a handful of files in this process, where starting workers would cost more than it saves."""
    results: list[FileReport | str] = []
    on_disk = [path for path in files if path != STDIN]
    workers = min(jobs or cpu_count(), len(on_disk))
    if workers > 1 and (jobs is not None or len(on_disk) >= PARALLEL_THRESHOLD):
        # Imported here: one file or a handful are checked without a pool (and its import).
        from concurrent.futures import ProcessPoolExecutor

        # map() keeps the input order, so the output is the serial run's byte for byte.
        with ProcessPoolExecutor(max_workers=workers) as pool:
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
    if output_format in ("json", "sarif"):
        document = to_json(reports) if output_format == "json" else to_sarif(reports)
        output = escape_json_text(json.dumps(document, indent=2, ensure_ascii=False,
                                             default=str)) + "\n"
    elif output_format == "github":
        output = format_github(reports)
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
    try:
        files, errors = _inputs(args.paths, _Configs(args), args.gitignore)
    except ConfigError as problem:
        _note(f"invalid configuration: {problem}")
        return EXIT_USAGE
    fixed = None
    if fixing.requested(args) or args.unsafe_fixes:
        fix_run = fixing.run(args, files, errors)
        if fix_run.exit_code is not None:
            for error in [*errors, *fix_run.errors]:
                _note(error)
            return fix_run.exit_code
        errors.extend(fix_run.errors)
        fixed = fix_run.fixed
    reports: list[FileReport] = []
    outcomes = _reports([path for path, _ in files], args.jobs)
    for (_, config), outcome in zip(files, outcomes, strict=True):
        if isinstance(outcome, str):
            errors.append(outcome)
        else:
            reports.append(dataclasses.replace(
                outcome, diagnostics=with_rule_levels(outcome.diagnostics, config.rules)))
    _write_report(args.format, reports)
    for error in errors:
        _note(error)
    if args.format in ("text", "github"):
        print(summary_line(reports, fixed), file=sys.stderr)
    if errors:
        return EXIT_USAGE
    has_errors = any(d.severity == Severity.ERROR for report in reports for d in report.diagnostics)
    return EXIT_FAILURE if has_errors else EXIT_OK
