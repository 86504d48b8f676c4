"""The engine's model registry as data: `models.json`, written by `scripts/models.py` from the
engine's `packages/llm/src/catalog/snapshot.ts` and `deprecations.ts` (the file records the
commits).

What the engine does with these facts, and so what they may decide here:
- A model id the registry does not carry is a supported state, not an error: it is sent to the
  provider as written (packages/llm/src/catalog/lookup.ts `catalogModel`, b839edd), priced only if
  the user priced it on their machine, else its cost governance degrades to `allow` (cost-tracker.ts
  `priceModel`, dddb001): nothing a file shows decides either, so nothing is reported. A
  refresh (`relavium models refresh --catalog`) may add models but never changes a shipped one
  (`installCatalogRefresh`), so what is said about a listed id holds on every machine, and
  nothing is said about an unlisted one.
- Lookup is by id alone, whatever the agent's `provider` (`catalogModel(modelId)`).
- `deprecated` is `now >= deprecatedAt` (packages/llm/src/model-catalog.ts `buildEntry`,
  ff71911): flagged, never forbidden (ADR-0064 §7).
- `reasoning_tiers` are the tiers the engine sends (`effortTiersFor`); any other authored
  `reasoning_effort` is withheld, never promoted (packages/core/src/engine/reasoning-effort.ts
  `gateReasoningEffort`, e1809ee).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

_DATA = Path(__file__).with_name("models.json")
# Prices are integer micro-cents (1e-8 USD) per million tokens.
_MICROCENTS_PER_USD = 100_000_000


@dataclass(frozen=True)
class Model:
    id: str
    provider: str
    display_name: str
    context_window_tokens: int
    max_output_tokens: int
    input_per_mtok_microcents: int
    output_per_mtok_microcents: int
    deprecated_at: str | None
    reasons: bool  # the catalog describes reasoning for it (even with no tier to control)
    reasoning_tiers: tuple[str, ...]

    def deprecated(self, now: datetime | None = None) -> bool:
        if self.deprecated_at is None:
            return False
        retires = datetime.fromisoformat(self.deprecated_at.replace("Z", "+00:00"))
        return (now or datetime.now(UTC)) >= retires

    def detail(self) -> str:
        """One line for a completion item: `openai · GPT-5.5 · 1,050,000-token context`."""
        return (f"{self.provider} · {self.display_name} · {self.context_window_tokens:,}-token "
                "context" + (" · deprecated" if self.deprecated() else ""))

    @property
    def retirement_day(self) -> str | None:
        return self.deprecated_at[:10] if self.deprecated_at else None

    def price_text(self) -> str:
        """`$5 / $25 per million tokens in / out ($0.000005 / $0.000025 per token)`."""
        per_million = [self.input_per_mtok_microcents / _MICROCENTS_PER_USD,
                       self.output_per_mtok_microcents / _MICROCENTS_PER_USD]
        million = " / ".join(f"${_decimal(usd)}" for usd in per_million)
        token = " / ".join(f"${_decimal(usd / 1_000_000)}" for usd in per_million)
        return f"{million} per million tokens in / out ({token} per token)"


def _decimal(value: float) -> str:
    text = f"{value:.12f}".rstrip("0").rstrip(".")
    return text or "0"


@cache
def _load() -> tuple[dict[str, Any], dict[str, Model]]:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    models = {
        entry["id"]: Model(**{**entry, "reasoning_tiers": tuple(entry["reasoning_tiers"])})
        for entry in data["models"]
    }
    return data["source"], models


def source() -> dict[str, Any]:
    """Where the data came from: the engine files, their commits, the day they were read."""
    return _load()[0]


def model(model_id: str) -> Model | None:
    return _load()[1].get(model_id)


def models_of(provider: str | None) -> list[Model]:
    """The registry's models of `provider` (all of them for None), by display name as the
    engine's picker orders them."""
    return sorted((each for each in _load()[1].values()
                   if provider is None or each.provider == provider),
                  key=lambda each: (each.display_name.casefold(), each.id))


def describe(found: Model) -> str:
    """Markdown for a hover: display name, provider, limits, price, deprecation, tiers."""
    lines = [
        f"**{found.display_name}** · `{found.id}` ({found.provider})",
        f"context window {found.context_window_tokens:,} tokens · max output "
        f"{found.max_output_tokens:,} tokens",
        found.price_text(),
    ]
    if found.deprecated():
        lines.append(f"deprecated: retired on {found.retirement_day} (still accepted)")
    elif found.deprecated_at:
        lines.append(f"retires on {found.retirement_day}")
    if found.reasoning_tiers:
        lines.append("reasoning_effort: " + ", ".join(found.reasoning_tiers))
    else:
        lines.append("reasoning_effort: none accepted (the engine withholds it)")
    return "\n\n".join(lines)
