"""What hover, completion and the key docs ask the schema about a document: the spec of a key
(`child`), of a list's items (`item_of`), the strict form a mapping is checked against
(`form_of`), the keys it accepts (`keys_of`), and the key or value under an offset (`spec_at`).

Forms that depend on the document are resolved by the mapping at hand: a tagged union's by its
tag, an `IfKey` by its key, a `BySibling` field by its sibling; without one, an `IfKey` is its
`absent` form and a tagged union offers its common keys and its tag.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.document.yaml_nodes import YMapping, YNode, YScalar, YSequence
from analysis.schema.vocabulary import BySibling, IfKey, MapOf, Obj, Seq, Spec, Tagged
from analysis.schema.workflow import ROOT


def child(spec: Spec, key: str, mapping: YNode | None) -> Spec | None:
    """The spec of `key` in a mapping described by `spec` (None when the key is unknown).
    `mapping` resolves forms that depend on the value (a node's type, an input's type)."""
    if isinstance(spec, Tagged):
        if key == spec.tag:
            return spec.tag_spec()
        form = spec.variant(mapping) if mapping is not None else None
        return form.fields.get(key) if form is not None else spec.common.get(key)
    if isinstance(spec, IfKey):
        return child(spec.form(mapping) if mapping is not None else spec.absent, key, mapping)
    if isinstance(spec, MapOf):
        return spec.value
    if isinstance(spec, Obj):
        found = spec.fields.get(key)
        if isinstance(found, BySibling) and mapping is not None:
            return found.chosen(mapping)
        return found
    return None


def form_of(spec: Spec, mapping: YNode | None) -> Obj | None:
    """The strict mapping `spec` describes for this `mapping` (a tagged union's form, an agent
    entry's inline or `$ref` form); None when it depends on a tag not yet known."""
    if isinstance(spec, Tagged):
        return spec.variant(mapping) if mapping is not None else None
    if isinstance(spec, IfKey):
        return spec.form(mapping) if mapping is not None else spec.absent
    return spec if isinstance(spec, Obj) else None


def keys_of(spec: Spec, mapping: YNode | None) -> dict[str, Spec]:
    """The keys a mapping described by `spec` accepts, in authored order, with their specs
    (empty for a mapping with free keys)."""
    form = form_of(spec, mapping)
    if form is None and isinstance(spec, Tagged):
        return {**spec.common, spec.tag: spec.tag_spec()}
    return dict(form.fields) if form is not None else {}


def item_of(spec: Spec) -> Spec | None:
    return spec.item if isinstance(spec, Seq) else None


@dataclass(frozen=True)
class Place:
    """Where an offset sits in the document, as the schema sees it: on the key `key` of
    `mapping` (described by `owner`), or in a value described by `spec`."""

    owner: Spec | None  # the spec of the mapping holding the key (None for a value)
    mapping: YMapping | None
    key: str | None
    spec: Spec | None  # the spec of the key's value, or of the value under the offset
    node: YNode


def spec_at(root: YNode | None, offset: int, schema: Spec = ROOT) -> Place | None:
    """The schema's view of the innermost key or scalar value containing `offset`, in a document
    described by `schema` (a workflow's `ROOT`, an agent file's `AGENT_FILE`)."""
    spec: Spec | None = schema
    node = root
    while node is not None and spec is not None:
        if isinstance(node, YMapping):
            # The last candidate: a block collection's end is where the next key starts.
            entry = next((e for e in reversed(node.entries)
                          if e.key.start <= offset <= e.value.end), None)
            if entry is None:
                return None
            value_spec = child(spec, entry.key.text, node)
            if entry.key.start <= offset <= entry.key.end:
                return Place(spec, node, entry.key.text, value_spec, entry.key)
            spec, node = value_spec, entry.value
        elif isinstance(node, YSequence):
            spec = item_of(spec)
            node = next((item for item in reversed(node.items)
                         if item.start <= offset <= item.end), None)
        elif isinstance(node, YScalar):
            return Place(None, None, None, spec, node)
        else:
            return None
    return None
