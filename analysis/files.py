"""Which files are Relavium workflows: the one selector the CLI's directory walk and the
language server's document filter share.

`*.relavium.yaml|yml` anywhere, and any `*.yaml|yml` inside a `.relavium/` folder — except
sample-scope sidecars (`<stem>.samples.yaml|yml`), which hold sample values, not a workflow.
"""

from __future__ import annotations

from pathlib import PurePath

from analysis.sample_scope import is_sidecar

WORKFLOW_SUFFIXES = (".relavium.yaml", ".relavium.yml")
YAML_SUFFIXES = (".yaml", ".yml")
WORKFLOW_FOLDER = ".relavium"


def is_workflow_path(path: PurePath) -> bool:
    name = path.name.lower()
    if is_sidecar(name):
        return False
    if name.endswith(WORKFLOW_SUFFIXES):
        return True
    return name.endswith(YAML_SUFFIXES) and WORKFLOW_FOLDER in path.parent.parts
