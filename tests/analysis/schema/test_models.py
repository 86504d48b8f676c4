"""The model registry data (`analysis/schema/models.json`) against the engine files it was made
from, and the facts the engine derives from it.

`tests/fixtures/models/` holds an excerpt of the engine's catalog snapshot and its deprecation
table, saved as written (each names its commit), so the generator is checked without the engine.
"""

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from analysis.schema.models import Model, describe, model, models_of, source
from tests.conftest import FIXTURES, REPO_ROOT

EXCERPTS = FIXTURES / "models"
SHIPPED = json.loads((REPO_ROOT / "analysis" / "schema" / "models.json").read_text("utf-8"))


def excerpt_commit(name: str) -> str:
    found = re.search(r"at commit ([0-9a-f]{40})", (EXCERPTS / name).read_text("utf-8"))
    assert found is not None, name
    return found.group(1)


def generate(tmp_path: Path) -> dict[str, object]:
    out = tmp_path / "models.json"
    subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "models.py"),
         str(EXCERPTS / "snapshot-excerpt.ts"), str(EXCERPTS / "deprecations-excerpt.ts"),
         "--snapshot-commit", excerpt_commit("snapshot-excerpt.ts"),
         "--deprecations-commit", excerpt_commit("deprecations-excerpt.ts"),
         "--date", SHIPPED["source"]["read_on"], "--out", str(out)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.read_text("utf-8"))


def test_the_data_names_the_commits_its_excerpts_were_saved_at() -> None:
    catalog, deprecations = SHIPPED["source"]["catalog"], SHIPPED["source"]["deprecations"]
    assert catalog["path"] == "packages/llm/src/catalog/snapshot.ts"
    assert catalog["commit"] == excerpt_commit("snapshot-excerpt.ts")
    assert deprecations["commit"] == excerpt_commit("deprecations-excerpt.ts")
    header = re.search(r"Catalog SHA-256: ([0-9a-f]{64})\n// Models: (\d+)",
                       (EXCERPTS / "snapshot-excerpt.ts").read_text("utf-8"))
    assert header is not None
    assert catalog["catalog_sha256"] == header.group(1)
    assert len(SHIPPED["models"]) == int(header.group(2))
    assert source() == SHIPPED["source"]


def test_the_generator_reproduces_the_shipped_entries_from_the_excerpt(tmp_path: Path) -> None:
    generated = generate(tmp_path)
    assert generated["source"] == SHIPPED["source"]
    shipped = {entry["id"]: entry for entry in SHIPPED["models"]}
    entries = generated["models"]
    assert isinstance(entries, list) and len(entries) == 5
    for entry in entries:
        assert entry == shipped[entry["id"]]


# reasoning-wire.ts (1395b9a) states each of these in its comments; `acceptedTiers` decides them.
@pytest.mark.parametrize(("model_id", "tiers"), [
    ("gpt-5.4-pro", ("medium", "high", "max")),  # "accepts {medium, high, xhigh} and rejects low"
    ("gpt-5-pro", ("high",)),  # "accepts only high"
    ("gemini-2.5-pro", ("low", "medium", "high", "max")),  # "cannot disable thinking at all"
    ("gemini-2.5-flash", ("off", "low", "medium", "high", "max")),  # budget min 0: can be off
    ("claude-opus-4-5", ("off", "low", "medium", "high")),  # publishes no 'max'
    ("gemini-3-pro-preview", ("low", "high", "max")),  # publishes ['low','high']: no medium
    ("deepseek-reasoner", ()),  # reasons, but publishes no control
    ("gpt-4o", ()),  # does not reason
])
def test_reasoning_tiers_are_the_ones_the_engine_sends(model_id: str, tiers: tuple[str, ...]
                                                       ) -> None:
    found = model(model_id)
    assert found is not None and found.reasoning_tiers == tiers


def test_deprecated_from_the_announced_instant_on() -> None:
    # model-catalog.ts buildEntry (ff71911): deprecated = parsed deprecatedAt <= now
    found = model("deepseek-chat")
    assert found is not None and found.deprecated_at == "2026-07-24T15:59:00Z"
    assert not found.deprecated(datetime(2026, 7, 24, 15, 58, 59, tzinfo=UTC))
    assert found.deprecated(datetime(2026, 7, 24, 15, 59, tzinfo=UTC))
    current = model("deepseek-v4-flash")
    assert current is not None and not current.deprecated()


def test_lookup_is_by_id_and_an_unlisted_id_is_unknown() -> None:
    assert model("my-fine-tune") is None
    assert {each.provider for each in models_of("gemini")} == {"gemini"}
    assert len(models_of(None)) == len(SHIPPED["models"])


def test_the_hover_text_gives_limits_and_price_per_token() -> None:
    found = model("gpt-5.5")
    assert isinstance(found, Model)
    text = describe(found)
    assert "**GPT-5.5** · `gpt-5.5` (openai)" in text
    assert "context window 1,050,000 tokens · max output 128,000 tokens" in text
    # 500,000,000 micro-cents per million tokens = $5 per million = $0.000005 per token
    assert "$5 / $30 per million tokens in / out ($0.000005 / $0.00003 per token)" in text
