"""docs/server.md's typed-completion example is what completion gives: its agent node, in a
workflow, completed after `run.outputs["classify"].`, lists the lines the page shows."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

from analysis.checks.analyze import analyze
from analysis.ide.completion import complete

PAGE = Path(__file__).resolve().parents[3] / "docs" / "server.md"


def test_the_documented_listing() -> None:
    section = PAGE.read_text(encoding="utf-8").split(
        "### Typed completion, hover and signature help", 1)[1].split("\n## ", 1)[0]
    node, listing = re.findall(r"```(?:yaml)?\n(.*?)```", section, re.DOTALL)[:2]
    reader = "- { id: reply, type: transform, transform: 'run.outputs[\"classify\"].' }\n"
    text = (
        "schema_version: '1.0'\nworkflow:\n  id: docs\n  agents:\n"
        "    - { id: classifier, model: claude-sonnet-4, provider: anthropic, "
        "system_prompt: Classify. }\n  nodes:\n"
        + textwrap.indent(node + reader, "    ")
        + "  edges:\n    - { from: classify, to: reply }\n"
    )
    model = analyze(text.replace("'run.outputs[\"classify\"].'", "'1'"))
    found = complete(model, text, text.index('"classify"].') + len('"classify"].'))
    shown = []
    for candidate in found:
        line = f"{candidate.label:<10} {candidate.detail}"
        if candidate.documentation:
            line = f"{line:<33} (documentation: {candidate.documentation})"
        shown.append(line)
    assert shown == listing.strip().splitlines()


def test_the_documented_typo_is_what_check_reports(tmp_path: Path) -> None:
    # the README's and docs/server.md's message, from the real CLI on docs/rules.md's example
    rules = (PAGE.parent / "rules.md").read_text(encoding="utf-8")
    example = rules.split("### unknown-output-property", 1)[1].split("Fixed:", 1)[0]
    (tmp_path / "demo.relavium.yaml").write_text(
        re.findall(r"```yaml\n(.*?)```", example, re.DOTALL)[0], encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "server", "check", "--no-config", "demo.relavium.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False)
    reported = checked.stdout.splitlines()[0]
    readme = (PAGE.parents[1] / "README.md").read_text(encoding="utf-8")
    assert f"\n{reported}\n" in readme
    assert "\n" + reported.split(": ", 1)[1] + "\n" in PAGE.read_text(encoding="utf-8")
