"""`relavium-lsp schema [--kind workflow|agent]`: print the workflow format, or the agent-file
format, as a draft-07 JSON Schema (for yaml-language-server, SchemaStore and other validators),
generated from the description the checks use (`analysis.schema.json_schema`)."""

from __future__ import annotations

import argparse
import json
import sys

from analysis.project.kinds import FileKind
from analysis.schema.json_schema import agent_json_schema, workflow_json_schema
from server.cli.console import EXIT_OK

NAME = "schema"
HELP = "Print the workflow (or agent file) format as a JSON Schema (draft-07)."
SCHEMAS = {FileKind.WORKFLOW: workflow_json_schema, FileKind.AGENT: agent_json_schema}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", choices=[kind.value for kind in SCHEMAS],
                        default=FileKind.WORKFLOW.value,
                        help="which file format: a workflow (*.relavium.yaml, the default) or an "
                             "agent file (*.agent.yaml, YAML under .relavium/agents/)")


def main(args: argparse.Namespace) -> int:
    schema = SCHEMAS[FileKind(args.kind)]()
    sys.stdout.write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK
