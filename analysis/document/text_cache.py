"""A cache of results computed from a text, bounded by the memory its entries hold.

Expression facts, syntax verdicts, tokens and template references are cached across document
versions by their text, so a keystroke re-analyses only the expression it touched. A cache bounded
by entry count (the former `lru_cache(maxsize=4096)`) thrashed past ~6,800 nodes and, with a few
long expressions, held hundreds of megabytes; this one evicts the least recently used entries
once their estimated size passes `max_bytes`.

The estimate: the text's own size plus `PER_ITEM_BYTES` for each item of a tuple result (or of a
dataclass result's tuple fields) — measured with tracemalloc, a read, span or token with its
objects takes 115–390 bytes.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import fields, is_dataclass
from typing import Generic, TypeVar

V = TypeVar("V")

PER_ITEM_BYTES = 400


def estimated_bytes(text: str, value: object) -> int:
    """Roughly what caching `value` under `text` holds in memory."""
    if isinstance(value, tuple):
        items = len(value)
    else:
        items = 0
        for name in _field_names(type(value)):
            member = getattr(value, name)
            if isinstance(member, tuple):
                items += len(member)
    return sys.getsizeof(text) + PER_ITEM_BYTES * (items + 1)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    """A dataclass's field names (none for other types), looked up once per type: `fields()`
    on every entry was most of the cost of caching one (a cold check caches ~13,000 values)."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = tuple(field.name for field in fields(kind)) if is_dataclass(kind) else ()
        _FIELD_NAMES[kind] = names
    return names


class TextCache(Generic[V]):
    """`compute(text)`, remembered for the most recently used texts within `max_bytes`.
    Safe to call from several threads (two may compute the same text once each)."""

    def __init__(self, compute: Callable[[str], V], max_bytes: int) -> None:
        self.compute = compute
        self.max_bytes = max_bytes
        self.held_bytes = 0
        self.calls = 0
        self.misses = 0
        self._entries: OrderedDict[str, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.__doc__ = compute.__doc__
        self.__wrapped__ = compute

    def __call__(self, text: str) -> V:
        found = self._hit(text)
        if found is not None:
            return found[0]
        value = self.compute(text)
        self._put(text, value)
        return value

    def map(self, texts: Sequence[str]) -> list[V]:
        """`[self(text) for text in texts]`, the hits looked up under one hold of the lock: an
        analysis looks up every expression of the document, and one lookup at a time cost ten
        times the dictionary's own look-up."""
        with self._lock:
            entries = self._entries
            self.calls += len(texts)
            found = [entries.get(text) for text in texts]
            missing = dict.fromkeys(
                text for text, entry in zip(texts, found, strict=True) if entry is None)
            self.misses += len(missing)
            for text, entry in zip(texts, found, strict=True):
                if entry is not None:
                    entries.move_to_end(text)
        computed: dict[str, V] = {}
        for text in missing:
            computed[text] = value = self.compute(text)
            self._put(text, value)
        return [entry[0] if entry is not None else computed[text]
                for text, entry in zip(texts, found, strict=True)]

    def _hit(self, text: str) -> tuple[V] | None:
        """The value remembered for `text` (in a 1-tuple), or None (a miss, counted)."""
        with self._lock:
            self.calls += 1
            entry = self._entries.get(text)
            if entry is not None:
                self._entries.move_to_end(text)
                return (entry[0],)
            self.misses += 1
            return None

    def _put(self, text: str, value: V) -> None:
        """Remember `value` for `text`, evicting the least recently used past `max_bytes`."""
        size = estimated_bytes(text, value)
        with self._lock:
            if size <= self.max_bytes and text not in self._entries:
                self._entries[text] = (value, size)
                self.held_bytes += size
                while self.held_bytes > self.max_bytes:
                    _, (_, dropped) = self._entries.popitem(last=False)
                    self.held_bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.held_bytes = 0


def text_cache(max_bytes: int) -> Callable[[Callable[[str], V]], TextCache[V]]:
    """Decorate a function of one text with a `TextCache` of `max_bytes`."""

    def decorate(compute: Callable[[str], V]) -> TextCache[V]:
        return TextCache(compute, max_bytes)

    return decorate
