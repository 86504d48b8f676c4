"""Property tests: the schema walk reports exactly what the schema description implies, and
completion offers exactly the keys validation accepts.

Valid workflows (the bundled example, the parity corpus' `loads` files) are mutated one step at a
time — a key dropped, an unknown key added, a key completion offers added with a valid value, a
scalar replaced by a value of another type or out of its bounds — and the schema rules'
(`unknown-key`, `missing-field`, `invalid-value`) error findings are compared with what this file
derives from the description's data (`required`, `enum`, bounds, `pattern`, …) on its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.checks.analyze import analyze
from analysis.diagnostics import Severity
from analysis.document.yaml_read import read_yaml
from analysis.schema.agent import MCP_SERVER
from analysis.schema.lookups import child, form_of, item_of, keys_of
from analysis.schema.vocabulary import (
    Boolean,
    Free,
    IfKey,
    MapOf,
    Number,
    Obj,
    Seq,
    Spec,
    Tagged,
    Text,
)
from analysis.schema.workflow import INPUT, ROOT
from tests.analysis.checks.test_engine_parity import FIXTURES, read_header
from tests.conftest import EXAMPLES
from tests.conftest import FIXTURES as FIXTURES_DIR

RULE_FIXTURES = FIXTURES_DIR / "rules"

SCHEMA_RULES = ("unknown-key", "missing-field", "invalid-value")
Steps = tuple[str | int, ...]


def schema_errors(data: Any) -> list[str]:
    result = analyze(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return sorted(d.rule for d in result.diagnostics
                  if d.rule in SCHEMA_RULES and d.severity is Severity.ERROR)


def _bases() -> list[Any]:
    texts = [(EXAMPLES / "ticket-triage.relavium.yaml").read_text(encoding="utf-8")]
    texts += [path.read_text(encoding="utf-8") for path in FIXTURES
              if read_header(path).verdict == "loads"]
    texts += [path.read_text(encoding="utf-8")
              for path in sorted(RULE_FIXTURES.glob("*/negative*.relavium.yaml"))]
    # Round-tripped through PyYAML (custom tags and YAML 1.1 booleans aside); only those still
    # schema-clean serve as bases.
    bases = []
    for text in texts:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        if schema_errors(data) == []:
            bases.append(data)
    return bases


BASES = _bases()


def _as_node(mapping: dict[str, Any]) -> Any:
    """The mapping as the YAML tree the spec lookups read (they look at tag values only)."""
    return read_yaml_root(yaml.safe_dump(mapping, sort_keys=False))


def read_yaml_root(text: str) -> Any:
    from analysis.document.source import SourceText

    return read_yaml(SourceText(text)).root


@dataclass(frozen=True)
class Site:
    path: Steps
    spec: Spec  # the spec describing the value at `path`
    form: Obj | None  # for a mapping: the strict form it is checked against
    owner: Obj | None  # the strict form of the mapping holding `path`'s last key


def sites(data: Any, spec: Spec | None = ROOT, path: Steps = (),
          owner: Obj | None = None) -> Iterator[Site]:
    if spec is None:
        return
    if isinstance(data, dict):
        node = _as_node(data)
        found = form_of(spec, node)
        form = found if found is not None and not found.open else None
        yield Site(path, spec, form, owner)
        for key, value in data.items():
            yield from sites(value, child(spec, str(key), node), (*path, key), form)
    else:
        yield Site(path, spec, None, owner)
        if isinstance(data, list):
            for index, value in enumerate(data):
                yield from sites(value, item_of(spec), (*path, index))


SITES = [list(sites(base)) for base in BASES]


def at(data: Any, path: Steps) -> Any:
    for step in path:
        data = data[step]
    return data


def valid_value(spec: Spec | None, owner: dict[str, Any] | None = None, key: str = "") -> Any:
    """A value the description accepts, built from its data alone."""
    if owner is not None and spec is not None:
        spec = child(spec, key, _as_node(owner)) or spec
    if isinstance(spec, Text):
        if spec.enum:
            return spec.enum[0]
        return "https://a.example/x" if "URL" in spec.doc else "out/a" if spec.pattern is None \
            else "a-1"
    if isinstance(spec, Number):
        low = spec.exclusive_minimum + 1 if spec.exclusive_minimum is not None else spec.minimum
        return int(low) if low is not None else 1
    if isinstance(spec, Boolean):
        return True
    if isinstance(spec, Seq):
        return [valid_value(spec.item)] if spec.min_items else []
    if isinstance(spec, MapOf):
        return {}
    if isinstance(spec, IfKey):
        return {"$ref": "./a.agent.yaml"}
    if isinstance(spec, Tagged):
        tag, form = next(iter(spec.variants.items()))
        return {name: tag if name == spec.tag else valid_value(form.fields[name])
                for name in form.required}
    if isinstance(spec, Obj):
        return {name: valid_value(spec.fields[name]) for name in spec.required}
    return "x"


def accepts(spec: Spec, value: Any) -> bool:
    """Whether a plain Text/Number/Boolean spec's data admits `value`."""
    if type(spec) is Text:
        if not isinstance(value, str) or (spec.enum and value not in spec.enum):
            return False
        if spec.nonempty and not (value.strip() if spec.blank_is_empty else value):
            return False
        return spec.pattern is None or bool(spec.pattern.match(value))
    if type(spec) is Number:
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            return False
        if spec.integer and not float(value).is_integer():
            return False
        return not ((spec.minimum is not None and value < spec.minimum)
                    or (spec.maximum is not None and value > spec.maximum)
                    or (spec.exclusive_minimum is not None and value <= spec.exclusive_minimum))
    assert type(spec) is Boolean
    return isinstance(value, bool)


def default_within_contract(declared_input: dict[str, Any]) -> Any:
    """A `default` of the input's own type and `validation` (the engine checks one at load)."""
    validation = declared_input.get("validation") or {}
    if validation.get("enum"):
        return validation["enum"][0]
    if declared_input["type"] == "number":
        return validation.get("min", 1)
    return True if declared_input["type"] == "boolean" else "x"


OTHER_VALUES = [True, False, 0, 1, -1, 2.5, 3, 1e400, "txt", "", "  ", "Not_Kebab", None, [], {}]


@st.composite
def mutation(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A mutated workflow and the schema error rules its one change implies."""
    index = draw(st.sampled_from(range(len(BASES))))
    data = deepcopy(BASES[index])
    kind = draw(st.sampled_from(["drop", "unknown", "offered", "retype"]))
    if kind == "retype":
        # Tags choose the form (other keys follow), and cross-field rules are not data here.
        leaves = [site for site in SITES[index]
                  if type(site.spec) in (Text, Number, Boolean) and site.path
                  and isinstance(site.path[-1], str) and site.path[-1] != "type"
                  and site.owner is not None and site.owner is not MCP_SERVER
                  and (site.owner.extra is None or site.owner is INPUT)]
        site = draw(st.sampled_from(leaves))
        value = draw(st.sampled_from(OTHER_VALUES))
        at(data, site.path[:-1])[site.path[-1]] = value
        return data, [] if accepts(site.spec, value) else ["invalid-value"]
    site = draw(st.sampled_from([site for site in SITES[index]
                                 if site.form is not None and site.form is not MCP_SERVER]))
    mapping = at(data, site.path)
    form = site.form
    assert form is not None
    if kind == "drop":
        # `$ref` chooses an agent entry's form; a `type` that is no union's tag chooses which
        # validation keys an input takes.
        droppable = [key for key in mapping if key != "$ref"
                     and (key != "type" or isinstance(site.spec, Tagged))]
        if not droppable:
            return data, []
        key = draw(st.sampled_from(droppable))
        del mapping[key]
        return data, ["missing-field"] if key in form.required else []
    if kind == "unknown":
        mapping["zz_not_a_key"] = 1
        return data, ["unknown-key"]
    offered = [key for key in keys_of(site.spec, _as_node(mapping)) if key not in mapping]
    if not offered:
        return data, []
    key = draw(st.sampled_from(offered))
    if key == "default" and (site.spec is INPUT or form is INPUT):
        mapping[key] = default_within_contract(mapping)
    elif isinstance(form.fields.get(key), Free) and key != "validation":
        mapping[key] = "x"
    else:
        mapping[key] = valid_value(site.spec, mapping, key)
    if site.spec is INPUT or form is INPUT:
        # A secret input may not have a default (a cross-field rule of the newest contract).
        return data, ["invalid-value"] if key == "default" and mapping["type"] == "secret" else []
    return data, []


def test_there_are_bases() -> None:
    assert len(BASES) >= 20


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutation())
def test_schema_findings_are_what_the_description_implies(case: tuple[Any, list[str]]) -> None:
    data, expected = case
    assert schema_errors(data) == expected


def test_an_added_default_is_judged_by_its_input_contract() -> None:
    """The case a CI run's Hypothesis found: `default: x` on an input whose validation.enum is
    [free, pro] is refused at load (ADR-0083 §3), so the mutation must pick a default within the
    contract, and every base input without one takes it cleanly."""
    checked = 0
    for base in BASES:
        for position, declared in enumerate(base["workflow"].get("inputs") or []):
            if "default" in declared or declared["type"] == "secret":
                continue
            data = deepcopy(base)
            data["workflow"]["inputs"][position]["default"] = default_within_contract(declared)
            assert schema_errors(data) == []
            if declared.get("validation") or declared["type"] == "number":
                data["workflow"]["inputs"][position]["default"] = "x"
                assert schema_errors(data) == ["invalid-value"]
            checked += 1
    assert checked >= 7


def test_completion_offers_exactly_the_keys_validation_accepts() -> None:
    """Every key offered for every mapping of every base is accepted there with a valid value,
    and a key not offered is refused."""
    checked = 0
    for base, base_sites in zip(BASES, SITES, strict=True):
        for site in base_sites:
            if site.form is None or site.form is MCP_SERVER:
                continue
            mapping = at(base, site.path)
            for key in keys_of(site.spec, _as_node(mapping)):
                if key in mapping or key == "default":
                    continue
                data = deepcopy(base)
                at(data, site.path)[key] = valid_value(site.spec, mapping, key)
                assert schema_errors(data) == [], (site.path, key)
                checked += 1
    assert checked > 200
