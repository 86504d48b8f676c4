"""Regenerate `analysis/schema/models.json`, the engine's static model registry as facts.

The engine (HodeTech/Relavium) ships its model metadata as a generated TypeScript object,
`packages/llm/src/catalog/snapshot.ts` (`CATALOG_SNAPSHOT`, ADR-0071: synced from models.dev), plus
a hand-kept retirement overlay, `packages/llm/src/catalog/deprecations.ts` (`MODEL_DEPRECATIONS`,
ADR-0071 §10). This script reads those two files as text — no TypeScript is run — and writes, per
model: id, provider, display name, context window, max output tokens, input/output price, the
announced retirement date, and the reasoning tiers the engine would send for it.

Usage (the files saved from the engine, the commits they were read at):

    python scripts/models.py SNAPSHOT_TS DEPRECATIONS_TS --snapshot-commit SHA \
        --deprecations-commit SHA --date YYYY-MM-DD [--out analysis/schema/models.json]

Not shipped: only its output is package data.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

SNAPSHOT_PATH = "packages/llm/src/catalog/snapshot.ts"
DEPRECATIONS_PATH = "packages/llm/src/catalog/deprecations.ts"
REASONING_WIRE = "packages/llm/src/reasoning-wire.ts@1395b9a11a992c5cac70904607686588f909954a"
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "analysis" / "schema" / "models.json"

# Relavium's normalized tiers in their order (packages/shared REASONING_EFFORTS; the agent
# schema's `reasoning_effort` enum, analysis/schema/agent.py).
TIERS = ("off", "low", "medium", "high", "max")

# The provider-wire value each non-`off` tier is sent as (reasoning-wire.ts OPENAI_WIRE,
# ANTHROPIC_WIRE, GEMINI_WIRE, DEEPSEEK_WIRE).
WIRE = {
    "openai": {"low": "low", "medium": "medium", "high": "high", "max": "xhigh"},
    "anthropic": {"low": "low", "medium": "medium", "high": "high", "max": "max"},
    "gemini": {"low": "low", "medium": "medium", "high": "high", "max": "high"},
    "deepseek": {"low": "high", "medium": "high", "high": "high", "max": "max"},
}


def accepted_tiers(provider: str, controls: dict[str, Any] | None) -> list[str]:
    """The tiers the engine sends for a model (reasoning-wire.ts `acceptedTiers`): none for a
    model that does not reason or publishes no control; with effort values, a tier whose wire
    value is one of them; with only a token budget, every graded tier; `off` where the model can
    be turned off (`canDisableReasoning`)."""
    if controls is None:
        return []
    efforts = controls.get("effortValues")
    budget = controls.get("budgetTokens")
    toggle = controls.get("toggle") is True
    if efforts is None and budget is None and not toggle:
        return []
    accepted = set()
    if efforts is not None:
        accepted = {tier for tier, wire in WIRE[provider].items() if wire in efforts}
    elif budget is not None:
        accepted = set(WIRE[provider])
    if provider in ("anthropic", "deepseek"):
        can_disable = True
    elif provider == "openai":
        can_disable = efforts is not None and "none" in efforts
    else:
        can_disable = toggle or (budget is not None and budget.get("min") == 0)
    if can_disable:
        accepted.add("off")
    return [tier for tier in TIERS if tier in accepted]


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_TOKEN = re.compile(r"""\s*(?:('(?:[^'\\]|\\.)*')|([A-Za-z_$][\w$]*)|(-?\d[\d_]*(?:\.\d+)?)|(.))""",
                    re.S)


def object_literal(text: str, declaration: str) -> Any:
    """The value of `export const <declaration>… = { … };` read as data: a literal of nested
    objects, arrays, single-quoted strings, numbers and booleans (what both files hold)."""
    start = re.search(rf"export const {declaration}\b[^=]*=\s*", text)
    if start is None:
        raise ValueError(f"no 'export const {declaration}' in the file")
    body = _COMMENT.sub("", text[start.end():])
    tokens = [(m.group(1), m.group(2), m.group(3), m.group(4)) for m in _TOKEN.finditer(body)]
    value, _ = _value(tokens, 0)
    return value


def _value(tokens: list[tuple[str | None, ...]], index: int) -> tuple[Any, int]:
    string, word, number, mark = tokens[index]
    if string is not None:
        return json.loads('"' + string[1:-1].replace('"', '\\"').replace("\\'", "'") + '"'), \
            index + 1
    if number is not None:
        digits = number.replace("_", "")
        return (float(digits) if "." in digits else int(digits)), index + 1
    if word in ("true", "false"):
        return word == "true", index + 1
    if mark == "[":
        items: list[Any] = []
        index += 1
        while tokens[index][3] != "]":
            item, index = _value(tokens, index)
            items.append(item)
            if tokens[index][3] == ",":
                index += 1
        return items, index + 1
    if mark == "{":
        entries: dict[str, Any] = {}
        index += 1
        while tokens[index][3] != "}":
            key_word = tokens[index][1]
            key = key_word if key_word is not None else _value(tokens, index)[0]
            if tokens[index + 1][3] != ":":
                raise ValueError(f"expected ':' after key {key!r}")
            entries[key], index = _value(tokens, index + 2)
            if tokens[index][3] == ",":
                index += 1
        return entries, index + 1
    raise ValueError(f"unexpected token {string or word or number or mark!r}")


def build(snapshot_text: str, deprecations_text: str, snapshot_commit: str,
          deprecations_commit: str, date: str) -> dict[str, Any]:
    catalog = object_literal(snapshot_text, "CATALOG_SNAPSHOT")
    retiring = object_literal(deprecations_text, "MODEL_DEPRECATIONS")
    digest = re.search(r"Catalog SHA-256: ([0-9a-f]{64})", snapshot_text)
    models = []
    for model_id, entry in catalog.items():
        provider = entry["provider"]
        if provider not in WIRE:
            raise ValueError(f"model {model_id!r} has a provider this script does not know: "
                             f"{provider!r}")
        models.append({
            "id": model_id,
            "provider": provider,
            "display_name": entry["displayName"],
            "context_window_tokens": entry["contextWindowTokens"],
            "max_output_tokens": entry["maxOutputTokens"],
            "input_per_mtok_microcents": entry["inputPerMtokMicrocents"],
            "output_per_mtok_microcents": entry["outputPerMtokMicrocents"],
            "deprecated_at": retiring.get(model_id),
            "reasons": "reasoning" in entry,
            "reasoning_tiers": accepted_tiers(provider, entry.get("reasoning")),
        })
    return {
        "source": {
            "repository": "HodeTech/Relavium",
            "catalog": {"path": SNAPSHOT_PATH, "commit": snapshot_commit,
                        "catalog_sha256": digest.group(1) if digest else None},
            "deprecations": {"path": DEPRECATIONS_PATH, "commit": deprecations_commit},
            "reasoning_tiers_from": REASONING_WIRE,
            "read_on": date,
        },
        "models": sorted(models, key=lambda model: model["id"]),
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help=f"the engine's {SNAPSHOT_PATH}")
    parser.add_argument("deprecations", type=Path, help=f"the engine's {DEPRECATIONS_PATH}")
    parser.add_argument("--snapshot-commit", required=True)
    parser.add_argument("--deprecations-commit", required=True)
    parser.add_argument("--date", required=True, help="the day the files were read (YYYY-MM-DD)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    data = build(args.snapshot.read_text(encoding="utf-8"),
                 args.deprecations.read_text(encoding="utf-8"),
                 args.snapshot_commit, args.deprecations_commit, args.date)
    args.out.write_text(render(data), encoding="utf-8")
    print(f"{args.out}: {len(data['models'])} models", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
