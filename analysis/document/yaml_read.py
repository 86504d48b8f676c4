"""Read YAML into a small node tree that keeps every node's span (document offsets).

Contract:
- `read_yaml(source)` returns a `YamlDocument` (`analysis.document.yaml_nodes`): the root node
  (None when the text has a syntax error or is empty) and the reader-level problems as
  `Diagnostic`s (`yaml-syntax`, `duplicate-key`, `invalid-value` for a non-string key).
- Values follow the engine's decode profile (`analysis.document.yaml_profile`); how the text is
  composed and what is refused: `analysis.document.yaml_compose`; the read after an edit:
  `analysis.document.yaml_reread`.
- Spans are `[start, end)` offsets into the document text (code points).
"""

from __future__ import annotations

from collections.abc import Callable

from analysis.document.source import SourceText
from analysis.document.yaml_compose import read_text
from analysis.document.yaml_nodes import YamlDocument
from analysis.document.yaml_profile import MAX_SOURCE_BYTES, too_large
from analysis.document.yaml_reread import reread


def read_yaml(
    source: SourceText, previous: YamlDocument | None = None,
    checkpoint: Callable[[], None] | None = None, take_over: bool = False,
) -> YamlDocument:
    """Compose `source` and convert it; never raises on any text (only what `checkpoint`
    raises: it is called as the conversion goes, so an analysis can stop in the middle of it).
    With `previous` (the same document before an edit), only the block-sequence item or
    top-level entry the edit falls in is read again when that is provably what a full read gives
    (see `reread`): the nodes before the edit are shared, those after it are copies `delta`
    characters further on. With `take_over` the caller gives `previous` up: the nodes after the
    edit are moved there in place and shared too (no copy, and the model built on them stays
    valid), and the result's `moved` says what moved, so that `moved.undo()` makes `previous`
    what it was (`analysis.checks.analyze` does, when it stops)."""
    text = source.text
    # A character is at least one UTF-8 byte: encode only when the length alone cannot tell.
    size = len(text) if len(text) > MAX_SOURCE_BYTES or text.isascii() else len(
        text.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        return YamlDocument(source, None, [too_large(source, f"{size} bytes")])
    if previous is not None:
        document = reread(source, previous, take_over)
        if document is not None:
            return document
    return read_text(source, checkpoint)
