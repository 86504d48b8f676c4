"""`relavium-lsp check --fix | --unsafe-fixes | --diff`: the diagnostics' fixes made on disk, or
shown as a unified diff (docs/cli.md, "Fixing").

`check` runs this before its report, so the report, the summary and the exit code tell what
remains. A file is written only when a fix changes it, atomically (a temporary file in its folder
renamed over it, with its mode), in its own line breaks and with its byte order mark if it had
one; through a symbolic link only to a regular file inside the checked folder (or the link's own
folder); never when it is excluded (`check` does not list it). `-` with `--fix` prints the fixed
text to standard output and the report to standard error, as ruff does.
"""

from __future__ import annotations

import argparse
import codecs
import os
import stat
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from analysis.checks.analyze import analyze
from analysis.checks.apply_fixes import FixOutcome, fix_text
from analysis.diagnostics import Diagnostic, Severity
from analysis.document.display import escape_line
from analysis.document.source import SourceText
from analysis.project.config import ProjectConfig, with_rule_levels
from analysis.project.files import SourceTooLarge, read_bounded, read_source
from server.cli.console import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from server.cli.formats import STDIN_PATH, FileReport, format_text, summary_line
from server.cli.project_agents import rewritten, workspace_of

STDIN = "-"
NOT_REGULAR = "not a regular file (fix the file it is read from)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fix", action="store_true",
        help="make the safe fixes in the files (the workflow's meaning for the engine is kept, or "
             "the fix is the only answer), then report what remains; see docs/cli.md")
    parser.add_argument(
        "--unsafe-fixes", action="store_true",
        help="with --fix or --diff, also make the unsafe fixes (a guess, such as the closest "
             "name): review the result")
    parser.add_argument(
        "--diff", action="store_true",
        help="print a unified diff of what --fix would change and write nothing; exit 1 when "
             "there is a change, 0 when none")


def requested(args: argparse.Namespace) -> bool:
    return bool(args.fix or args.diff)


@dataclass
class FixRun:
    """What the fixing step did: the findings fixed per rule, the I/O errors met, and, when it
    answered the command itself (`--diff`, or `--fix` on stdin), the exit code."""

    fixed: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    exit_code: int | None = None


def run(args: argparse.Namespace, files: list[tuple[str, ProjectConfig]], errors: list[str]
        ) -> FixRun:
    """Fix (or diff) `files`, in order; `errors` are the ones `check` met listing them."""
    outcome = FixRun()
    if args.unsafe_fixes and not requested(args):
        outcome.errors.append("--unsafe-fixes needs --fix or --diff")
        outcome.exit_code = EXIT_USAGE
        return outcome
    if any(path == STDIN for path, _ in files) and len(files) > 1:
        # The fixed text goes to standard output, where it cannot share room with files' reports.
        outcome.errors.append("-: with --fix or --diff, standard input is checked alone")
        outcome.exit_code = EXIT_USAGE
        return outcome
    roots = [os.path.realpath(raw) for raw in args.paths if raw != STDIN and os.path.isdir(raw)]
    changed = False
    for path, config in files:
        if path == STDIN:
            return _stdin(args, config, outcome, errors)
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                # Read once only, by the check: a FIFO's text does not come twice.
                outcome.errors.append(f"{path}: not fixed: {NOT_REGULAR}")
                continue
            text = read_source(path)
        except (SourceTooLarge, OSError, UnicodeDecodeError):
            continue  # `check` reports why the file cannot be read
        fixed = _fixed(text, path, config, args.unsafe_fixes)
        if fixed.text == text:
            continue
        # --diff shows what --fix would write, so it refuses the same files.
        refusal = _unwritable(path, roots) or (None if args.diff else _write(path, fixed.text))
        if refusal is not None:
            outcome.errors.append(f"{path}: not fixed: {refusal}")
            continue
        changed = True
        outcome.fixed += fixed.fixed
        if args.diff:
            _print_diff(path, text, fixed.text)
    if args.diff:
        outcome.exit_code = EXIT_USAGE if errors or outcome.errors else (
            EXIT_FAILURE if changed else EXIT_OK)
        noun = "fix" if outcome.fixed.total() == 1 else "fixes"  # on stderr: stdout is the diff
        print(f"{outcome.fixed.total()} {noun} would be made", file=sys.stderr)
    return outcome


def _fixed(text: str, path: str | None, config: ProjectConfig, unsafe: bool) -> FixOutcome:
    def diagnose(current: str) -> list[Diagnostic]:
        return with_rule_levels(
            analyze(current, path, workspace=workspace_of(path)).diagnostics, config.rules)

    return fix_text(text, diagnose, unsafe=unsafe)


def _stdin(args: argparse.Namespace, config: ProjectConfig, outcome: FixRun, errors: list[str]
           ) -> FixRun:
    try:
        text = read_bounded(sys.stdin.buffer, None)
    except (SourceTooLarge, OSError, UnicodeDecodeError) as error:
        outcome.errors.append(f"{STDIN_PATH}: cannot read: {error}")
        outcome.exit_code = EXIT_USAGE
        return outcome
    fixed = _fixed(text, None, config, args.unsafe_fixes)
    outcome.fixed = fixed.fixed
    if args.diff:
        _print_diff(STDIN_PATH, text, fixed.text)
        outcome.exit_code = EXIT_FAILURE if fixed.text != text else EXIT_OK
        return outcome
    # The fixed text, byte for byte, as a filter's output (an editor's "format with").
    sys.stdout.write(fixed.text)
    sys.stdout.flush()
    report = FileReport(STDIN_PATH, SourceText(fixed.text), fixed.remaining)
    sys.stderr.write(format_text([report]))
    print(summary_line([report], fixed.fixed), file=sys.stderr)
    errors_left = any(d.severity == Severity.ERROR for d in fixed.remaining)
    outcome.exit_code = EXIT_USAGE if errors else (EXIT_FAILURE if errors_left else EXIT_OK)
    return outcome


def _print_diff(path: str, old: str, new: str) -> None:
    import difflib  # only a diff needs it; `check` starts without it

    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=path, tofile=path)
    for line in lines:
        # Shown like every line `check` prints: a workflow's control characters escaped.
        print(escape_line(line.rstrip("\r\n")))


def _unwritable(path: str, roots: Iterable[str]) -> str | None:
    """Why `--fix` must not write the file `path` names, or None."""
    try:
        real = os.path.realpath(path, strict=True)
        info = os.stat(real)
    except OSError as error:
        return _reason(error)
    if not stat.S_ISREG(info.st_mode):
        return NOT_REGULAR
    inside = [*roots, os.path.realpath(os.path.dirname(os.path.abspath(path)))]
    if not any(os.path.commonpath([real, root]) == root for root in inside):
        return ("a symbolic link to a file outside the checked folder (check --fix the file it "
                "points to)")
    # The owner's write bit too: the superuser may write anything, but a file marked read-only
    # was marked so on purpose (a rename would replace it without asking).
    if not os.access(real, os.W_OK) or not info.st_mode & stat.S_IWUSR:
        return "the file is read-only (make it writable to fix it)"
    return None


def _reason(error: OSError) -> str:
    return (error.strerror or type(error).__name__).lower()


def _write(path: str, text: str) -> str | None:
    """Write `text` over the file `path` names (through links), atomically; why it was not
    written, or None."""
    import tempfile  # only a write needs it; `check` starts without it

    try:
        real = os.path.realpath(path, strict=True)
        info = os.stat(real)
        folder = os.path.dirname(real)
        with open(real, "rb") as handle:
            bom = handle.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8
        data = (codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8")
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{Path(real).name}.",
                                                 suffix=".tmp")
    except OSError as error:
        return _reason(error)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        os.replace(temporary, real)
    except OSError as error:
        os.unlink(temporary)
        return _reason(error)
    rewritten(real)  # a fixed agent file: the workflows checked after it see its new text
    return None
