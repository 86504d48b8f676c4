"""Shared fixtures and paths for the test suite."""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import settings

# The suite's property tests draw the same examples on every run, so a run that lands cannot
# fail on a draw the change did not cause; `HYPOTHESIS_PROFILE=explore` draws fresh ones to go
# looking (each case found is then pinned with `@example`).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# A workflow `check` finds nothing in.
CLEAN_WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - { id: start, type: input }
  edges: []
"""
# One error (unknown-key on line 5) and one warning (unreachable-node on line 6).
FINDINGS_WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: demo
  nodes:
    - { id: start, type: input, colour: red }
    - { id: lone, type: transform, transform: '1' }
  edges: []
"""


def relavium_lsp(*args: str, cwd: Path | None = None,
                 **options: Any) -> subprocess.CompletedProcess[str]:
    """The real command line (`python -m server ...`), as a user or CI runs it."""
    settings: dict[str, Any] = {"capture_output": True, "text": True, "encoding": "utf-8",
                                "timeout": 120, **options}
    return subprocess.run([sys.executable, "-m", "server", *args], cwd=cwd, check=False,
                          **settings)
