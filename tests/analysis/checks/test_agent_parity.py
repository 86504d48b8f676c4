"""The agent oracle (tests/fixtures/agents/<family>/*.agent.yaml): every agent file states what the
engine's `parseAgent` does with it, and our verdict agrees — a file it loads gets no error (and no
warning but the one a workflow gets too for a tag the engine ignores, `!!binary x` read as text:
docs/rules.md#yaml-syntax), a file it refuses gets at least one error.

Header (comment lines at the top of each fixture, after a byte order mark; see
tests/fixtures/agents/README.md):
  # engine: loads | refuses <code> (<fields>)   parseAgent's verdict, HodeTech/Relavium 839f2bd
  # why: <the engine source (or doc) the text comes from>
With RELAVIUM_ENGINE_AGENT_PARSER naming an ES module that exports the engine's `parseAgent`, the
real parser's verdict on every fixture is compared with its `engine:` line too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from analysis.checks.analyze import analyze
from analysis.diagnostics import Severity
from analysis.project.kinds import FileKind
from tests.conftest import FIXTURES as FIXTURES_DIR

CORPUS = FIXTURES_DIR / "agents"
FIXTURES = sorted(CORPUS.glob("*/*.agent.yaml"))
HARNESS = CORPUS / "harness" / "check.mjs"
_VERDICT = re.compile(r"# engine: (loads|refuses (agent_syntax|agent_validation))\b")


def engine_verdict(path: Path) -> str:
    first = path.read_text(encoding="utf-8-sig").split("\n", 1)[0]
    found = _VERDICT.match(first)
    assert found is not None, f"{path}: the first line must be '# engine: loads|refuses <code>'"
    return found.group(1)


def _fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name.removesuffix('.agent.yaml')}"


def test_the_corpus_is_there() -> None:
    verdicts = [engine_verdict(path) for path in FIXTURES]
    assert len(FIXTURES) >= 250
    assert {"engine", "fields", "mcp", "document", "yaml"} <= {p.parent.name for p in FIXTURES}
    # both sides are well represented, so agreeing cannot be "refuse everything"
    assert verdicts.count("loads") >= 100
    assert sum(verdict.startswith("refuses") for verdict in verdicts) >= 100


@pytest.mark.parametrize("path", FIXTURES, ids=_fixture_id)
def test_our_verdict_is_the_engines(path: Path) -> None:
    result = analyze(path.read_text(encoding="utf-8-sig"), str(path))
    assert result.kind is FileKind.AGENT
    shown = [(d.rule, d.range.start.line + 1, d.message) for d in result.diagnostics
             if d.severity is Severity.ERROR or (d.severity is Severity.WARNING and not (
                 d.rule == "yaml-syntax" and d.message.startswith("tag '")))]
    if engine_verdict(path) == "loads":
        assert shown == [], "parseAgent loads this file: nothing may be an error or a warning"
    else:
        assert any(d.severity is Severity.ERROR for d in result.diagnostics), \
            f"parseAgent refuses this file ({engine_verdict(path)}): expected an error"


# The engine behaviours the corpus pins, each a fixture whose verdict the real parser gave
# (HodeTech/Relavium 839f2bd): the YAML 1.2 core decode profile of packages/core/src/yaml-decode.ts
# (`version: '1.2'`, `schema: 'core'`, `merge: false`, `uniqueKeys`, `stringKeys`,
# `maxAliasCount: 0`) and the Zod types of packages/shared/src/agent.ts and common.ts.
PINNED = {
    # JavaScript has one number type: Zod's `.int()` takes a whole-number float
    "fields/max-tokens-whole-float": "loads", "yaml/exp-int": "loads",
    "fields/memory-window-whole-float": "loads", "fields/max-tokens-fraction": "refuses",
    # YAML 1.2 core: 0x/0o are integers, 007 decimal, 1_000 and 1:30 strings, .INF infinite
    "fields/temperature-hex": "loads", "yaml/leading-zero-int": "loads",
    "fields/max-tokens-underscore": "refuses", "yaml/sexagesimal": "refuses",
    "yaml/infinity-upper": "refuses", "fields/temperature-nan": "refuses",
    # an anchor without an alias loads; any alias is refused (maxAliasCount: 0)
    "yaml/anchor-without-alias": "loads", "yaml/alias": "refuses",
    # `<<` is an ordinary key (merge: false), so the strict schema refuses it
    "yaml/merge-key-inline": "refuses",
    # a %YAML 1.1 directive changes nothing: `yes` stays a string, 010 stays ten
    "yaml/yaml-1-1-directive": "loads", "yaml/yaml-1-1-directive-yes": "refuses",
    "yaml/yaml-1-1-directive-octal": "loads",
    # True/TRUE are booleans in 1.2 core, Null a null; a key is a string (stringKeys)
    "yaml/true-capital": "loads", "yaml/true-upper": "loads", "yaml/null-word-name": "refuses",
    "yaml/int-key": "refuses", "yaml/complex-key": "refuses",
    # an unknown tag is ignored (resolveKnownTags: false), `!!str 10` is a string
    "yaml/unknown-core-tag": "loads", "yaml/str-tag-number": "refuses",
    # one document only; a byte order mark and CRLF are nothing
    "document/two-documents": "refuses", "document/bom": "loads", "document/crlf": "loads",
    # nonEmptyString is `.min(1)`: a blank string is not empty; no template is resolved
    "fields/system-prompt-blank": "loads", "fields/system-prompt-secret-template": "loads",
    # an agent file is the bare agent: no schema_version, no wrapper
    "document/unknown-schema-version": "refuses", "document/wrapped-in-agent": "refuses",
    # MCP: sse is http's alias, the scheme test is case-insensitive, ids unique on ref ?? id
    "mcp/sse": "loads", "mcp/http-upper-scheme": "loads", "mcp/list-ref-and-id-same": "refuses",
}


@pytest.mark.parametrize(("name", "verdict"), PINNED.items())
def test_the_pinned_engine_behaviours(name: str, verdict: str) -> None:
    path = CORPUS / f"{name}.agent.yaml"
    assert engine_verdict(path).split()[0] == verdict
    errors = [d for d in analyze(path.read_text(encoding="utf-8-sig"), str(path)).diagnostics
              if d.severity is Severity.ERROR]
    assert bool(errors) is (verdict == "refuses")


ENGINE_PARSER = os.environ.get("RELAVIUM_ENGINE_AGENT_PARSER")


@pytest.mark.skipif(not ENGINE_PARSER, reason="RELAVIUM_ENGINE_AGENT_PARSER names no parser")
def test_the_real_parser_agrees_with_every_header() -> None:
    assert ENGINE_PARSER is not None
    done = subprocess.run(["node", str(HARNESS), ENGINE_PARSER, *map(str, FIXTURES)],
                          capture_output=True, text=True, timeout=600, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(FIXTURES), done.stderr[-2000:]
    wrong = [
        f"{path.relative_to(CORPUS)}: engine {verdict}: {answer.get('message')}"
        for path, answer in zip(FIXTURES, answers, strict=True)
        if (verdict := "loads" if answer["ok"] else f"refuses {answer['code']}")
        != engine_verdict(path)
    ]
    assert wrong == []


def test_the_size_limit_is_the_engines() -> None:
    """parseAgent refuses a text of more than 2 MiB characters (`MAX_SOURCE_CHARS`,
    packages/core/src/parser.ts; agent-parser.test.ts "over the parse limit"), and the CLI that
    reads an agent file refuses one of more than that many bytes before reading it
    (apps/cli/src/workflows/resolve.ts `MAX_YAML_SOURCE_BYTES`, 839f2bd): the byte limit decides
    for a file, as it does here."""
    limit = 2 * 1024 * 1024
    padding = "# " + "é" * ((limit - 200) // 2) + "\n"  # two bytes a character
    agent = "id: a\nmodel: m\nprovider: anthropic\nsystem_prompt: hi\n"
    assert len((padding + agent).encode("utf-8")) <= limit
    assert analyze(padding + agent, "x.agent.yaml").diagnostics == []
    over = padding + "#" + "x" * 200 + "\n" + agent
    assert len(over) < limit < len(over.encode("utf-8"))
    rules = [d.rule for d in analyze(over, "x.agent.yaml").diagnostics]
    assert rules == ["yaml-syntax"]
    assert [d.rule for d in analyze("a" * (limit + 1), "x.agent.yaml").diagnostics] == [
        "yaml-syntax"]
