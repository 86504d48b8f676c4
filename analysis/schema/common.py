"""The field specs the workflow and agent schemas share (the engine's common.ts): ids, names,
counts, sampling temperature, the retry policy."""

from __future__ import annotations

import re

from analysis.schema.ceilings import RETRY_MAX
from analysis.schema.vocabulary import Number, Obj, Seq, Text, labelled_by

KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
NAME = re.compile(r"[A-Za-z0-9_-]+\Z")


def kebab_suggestion(text: str) -> str:
    """The kebab-case spelling of an id (`Fetch_Data` → `fetch-data`)."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text).lower())
    return "-".join(words)


KEBAB_ID = Text(KEBAB, "kebab-case (lowercase letters and digits joined by single hyphens)",
                corrected=kebab_suggestion)
NAME_ID = Text(NAME, "letters, digits, '_' or '-' only")
NONEMPTY = Text(nonempty=True)
POSITIVE_INT = Number(integer=True, minimum=1)
NON_NEGATIVE_INT = Number(integer=True, minimum=0)
TEMPERATURE = Number(minimum=0, maximum=2)
ID_LABEL = labelled_by("id")

RETRYABLE_ERRORS = ("provider_rate_limit", "provider_unavailable", "tool_failed", "sandbox_error")
RETRY = Obj({
    "max": Number(integer=True, minimum=1, maximum=RETRY_MAX, ceiling=True,
                  doc="Total attempts, the first included (max: 3 = up to 2 re-dispatches)."),
    "backoff": Text(enum=("linear", "exponential"),
                    doc="How the delay between attempts grows: linear or exponential."),
    "backoff_ms": POSITIVE_INT.described("The base delay in ms the backoff scales (the engine "
                                         "defaults it)."),
    "retry_on": Seq(Text(enum=RETRYABLE_ERRORS), min_items=1,
                    empty_help=" (omit retry_on to retry any retryable failure)",
                    doc="Which retryable failures consume the budget (omit for all)."),
}, ("max", "backoff"), doc="Re-dispatch the whole node on a retryable failure.")
