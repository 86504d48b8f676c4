"""Completion from the schema alone, without a workflow model: YAML keys, enum and boolean
values, `model` ids from the engine's registry, and everything an agent file offers."""

from __future__ import annotations

import re

from analysis.ide.candidates import Candidate, CandidateKind
from analysis.ide.completion_text import PLACEHOLDER, Cursor, Field, schema_place
from analysis.ide.describe import describe_spec
from analysis.schema.agent_file import AGENT_FILE
from analysis.schema.lookups import keys_of
from analysis.schema.models import describe, models_of
from analysis.schema.vocabulary import Boolean, Spec, Text
from analysis.schema.workflow import ROOT

# A key being typed alone on a block-mapping line (after any `- ` list dashes).
KEY_PREFIX = re.compile(r"[ \t]*(?:-[ \t]+)*([A-Za-z_$][A-Za-z0-9_$-]*)?\Z")
_WORD_AFTER = re.compile(r"[A-Za-z0-9_$-]*")


def complete_agent_file(text: str, offset: int) -> list[Candidate]:
    """An agent file has no workflow model: the agent schema's keys and enum values only."""
    cursor = Cursor(text, offset)
    if (typed_key := KEY_PREFIX.match(cursor.prefix)) is not None:
        return key_candidates(text, cursor.offset, typed_key.group(1) or "", AGENT_FILE)
    field = cursor.field()
    typed = typed_value(field) if field is not None and field.same_line else None
    if field is None or typed is None:
        return []
    if field.key == "model":
        return model_candidates(cursor, typed, cursor.sibling(field, "provider"))
    return schema_values(cursor, field, typed, AGENT_FILE)


def model_candidates(cursor: Cursor, typed: str, provider: str | None) -> list[Candidate]:
    """The registry's model ids of `provider` (all before one is written), deprecated last."""
    span = (cursor.offset - len(typed), cursor.offset)
    return [Candidate(found.id, CandidateKind.MODEL, found.detail(), span, describe(found),
                      rank=int(found.deprecated())) for found in models_of(provider)]


def typed_value(field: Field) -> str | None:
    """The one-word value typed before the cursor (in a flow list, its last item), or None when
    it is not one (a model id may hold dots: `gpt-5.5`)."""
    value = field.value_prefix
    if "[" in value:
        value = re.split(r"[\[,]", value)[-1]
    typed = value.strip().lstrip("'\"")
    word = r"[A-Za-z0-9_$:.-]*" if field.key == "model" else r"[A-Za-z0-9_$:-]*"
    return typed if re.fullmatch(word, typed) else None


def schema_values(cursor: Cursor, field: Field, typed: str, schema: Spec = ROOT
                   ) -> list[Candidate]:
    """The values the schema allows where the cursor is (an enum's, a boolean's)."""
    start, end = cursor.offset - len(typed), cursor.offset
    after = _WORD_AFTER.match(cursor.text, end).end()  # type: ignore[union-attr]
    place = schema_place(cursor.text, start, after, PLACEHOLDER, schema)
    spec = place.spec if place is not None and place.key is None else None
    values: tuple[str, ...] = ()
    if isinstance(spec, Text):
        values = spec.enum
    elif isinstance(spec, Boolean):
        values = ("true", "false")
    return [Candidate(v, CandidateKind.VALUE, field.key, (start, end), spec.doc if spec else "")
            for v in values]


def key_candidates(text: str, offset: int, typed: str, schema: Spec = ROOT) -> list[Candidate]:
    """The keys the schema accepts in the mapping the cursor's line belongs to, minus those
    already written (the line is read as a placeholder key to find that mapping)."""
    end = _WORD_AFTER.match(text, offset).end()  # type: ignore[union-attr]
    after = text[end:end + 2].lstrip(" \t")
    place = schema_place(text, offset - len(typed), end,
                         PLACEHOLDER if after.startswith(":") else PLACEHOLDER + ":", schema)
    if place is None or place.key != PLACEHOLDER or place.owner is None:
        return []
    written = {entry.key.text for entry in place.mapping.entries} if place.mapping else set()
    colon = "" if after.startswith(":") else ": "
    return [
        Candidate(key, CandidateKind.KEY, describe_spec(spec), (offset - len(typed), end),
                  spec.doc, insert=key + colon, filter=key)
        for key, spec in keys_of(place.owner, place.mapping).items() if key not in written
    ]
