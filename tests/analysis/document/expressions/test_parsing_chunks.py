"""tree-sitter gets an expression in chunks through a callback, never as one buffer: a whole
buffer is parsed without releasing the interpreter lock (0.4 s for a garbled 32 KiB expression,
every server thread stopped), a callback runs Python code at each chunk, where it can change
hands (bench/gil_hold.py measures it)."""

from __future__ import annotations

from typing import Any

import pytest
from tree_sitter import Node, Parser

from analysis.document.expressions import parsing
from analysis.document.expressions.parsing import LANGUAGE, ParsedExpression


class _Watched:
    def __init__(self) -> None:
        self.parser = Parser(LANGUAGE)
        self.reads = 0
        self.buffers = 0

    def parse(self, source: Any) -> Any:
        if not callable(source):
            self.buffers += 1
            return self.parser.parse(source)

        def read(offset: int, point: Any) -> bytes:
            self.reads += 1
            chunk: bytes = source(offset, point)
            return chunk

        return self.parser.parse(read)


def _sexp(node: Node) -> str:
    return str(node)


@pytest.mark.parametrize("expression", [
    "([{(" * 2000,  # garbled: tree-sitter's error recovery is the slow case
    "run.outputs['é😀'].x + `${inputs.a}` // ünïcode\n" * 200,
    "1 <!-- html comment\n+ 2",
])
def test_a_long_expression_is_read_in_chunks_into_the_same_tree(
    monkeypatch: pytest.MonkeyPatch, expression: str
) -> None:
    watched = _Watched()
    monkeypatch.setattr(parsing._PARSERS, "parser", watched)
    parsed = ParsedExpression(expression)
    assert watched.buffers == 0
    assert watched.reads >= len(parsed.data) // parsing._CHUNK_BYTES
    assert _sexp(parsed.root) == _sexp(watched.parser.parse(parsed.data).root_node)
