"""Types that are functions of a text alone, kept across analyses: a keystroke changes one
expression, and every other's type (and every inline `output_schema`'s) is looked up by its
text and the types it reads. Types are values (no document objects in them), so keeping them
keeps no analysis alive.

- `expression_types(source, roots)` → the expression's value's type under `roots`, and what the
  engine hands on of it (`returned_type`).
- `schema_type(text, schema)` → the type the `output_schema` value `schema` (whose text in its
  document is `text`) describes, None for one the compiler refuses.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache

from analysis.document.yaml_nodes import YNode
from analysis.schema.output_schema import compile_output_schema
from analysis.schema.value_types import ValueType
from analysis.types.infer import returned_type, text_type

MAX_CACHED = 8192
_LOCK = threading.Lock()
_SCHEMA_TYPES: OrderedDict[str, ValueType | None] = OrderedDict()


@lru_cache(maxsize=MAX_CACHED)
def expression_types(source: str, roots: tuple[tuple[str, ValueType], ...]
                     ) -> tuple[ValueType, ValueType]:
    value_type = text_type(source, dict(roots))
    return value_type, returned_type(value_type)


def schema_type(text: str, schema: YNode) -> ValueType | None:
    with _LOCK:
        if text in _SCHEMA_TYPES:
            _SCHEMA_TYPES.move_to_end(text)
            return _SCHEMA_TYPES[text]
    value_type = compile_output_schema(schema).value_type
    with _LOCK:
        _SCHEMA_TYPES[text] = value_type
        if len(_SCHEMA_TYPES) > MAX_CACHED:
            _SCHEMA_TYPES.popitem(last=False)
    return value_type
