"""`relavium-lsp schema`: print the workflow format as a draft-07 JSON Schema (for
yaml-language-server, SchemaStore and other validators), generated from the description the
checks use (`analysis.schema.json_schema`)."""

from __future__ import annotations

import argparse
import json
import sys

from analysis.schema.json_schema import workflow_json_schema
from server.cli.console import EXIT_OK

NAME = "schema"
HELP = "Print the workflow format as a JSON Schema (draft-07)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options: the schema is the same for every project


def main(args: argparse.Namespace) -> int:
    sys.stdout.write(json.dumps(workflow_json_schema(), indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK
