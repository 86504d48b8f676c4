"""The reader decodes YAML as the engine does (packages/core/src/yaml-decode.ts: the `yaml` npm
package 2.x, YAML 1.2 core schema, `resolveKnownTags: false`, `stringKeys: true`,
`merge: false`, `maxAliasCount: 0`). Every expectation below is what that decoder returned for
the same text (`parse(text, {version: '1.2', schema: 'core', resolveKnownTags: false, merge:
false, uniqueKeys: true, stringKeys: true, maxAliasCount: 0})` under Node)."""

import math

import pytest

from analysis.document.source import SourceText
from analysis.document.yaml_nodes import plain_value
from analysis.document.yaml_read import read_yaml

INF = math.inf

DECODED = [
    # Tags the decoder does not know leave the plain text (or the collection as written).
    ("a: !foo bar", {"a": "bar"}),
    ("a: !env HOME", {"a": "HOME"}),
    ("a: !!binary aGVsbG8=", {"a": "aGVsbG8="}),
    ("a: !!timestamp 2024-01-01", {"a": "2024-01-01"}),
    ("a: !!foo 5", {"a": "5"}),
    ("%TAG !e! tag:example.com,2000:\n---\na: !e!foo 1", {"a": "1"}),
    ("a: !foo", {"a": ""}),
    ("a: &x !foo 5", {"a": "5"}),
    ("a: !foo [1,2]", {"a": [1, 2]}),
    ("a: !!set {x, y}", {"a": {"x": None, "y": None}}),
    ("a: !!omap [{x: 1}]", {"a": [{"x": 1}]}),
    ("a: !!map [1]", {"a": [1]}),
    # Core scalar tags apply when their own pattern matches the text, quoted or not.
    ('a: !!int "1000"', {"a": 1000}),
    ('a: !!int "0o17"', {"a": 15}),
    ("a: !!int 0x10", {"a": 16}),
    ("a: !!int 1.5", {"a": "1.5"}),
    ("a: !!int 1_000", {"a": "1_000"}),
    ("a: !!int +0x10", {"a": "+0x10"}),
    ("a: !!float 5", {"a": "5"}),
    ("a: !!float 1.", {"a": 1.0}),
    ("a: !!float 1e3", {"a": 1000}),
    ('a: !!float "1.5"', {"a": 1.5}),
    ("a: !!float -.inf", {"a": -INF}),
    ("a: !!float +.nan", {"a": "+.nan"}),
    ('a: !!null ""', {"a": None}),
    ("a: !!null x", {"a": "x"}),
    ("a: !!bool yes", {"a": "yes"}),
    ('a: !!bool "true"', {"a": True}),
    ("a: !!str 5", {"a": "5"}),
    ("a: !!str null", {"a": "null"}),
    ("a: ! 5", {"a": "5"}),
    ("a: !<tag:yaml.org,2002:str> 5", {"a": "5"}),
    # Plain scalars: YAML 1.2 core.
    ("a: 0b11", {"a": "0b11"}),
    ("a: 0x1_0", {"a": "0x1_0"}),
    ("a: 0x-1", {"a": "0x-1"}),
    ("a: 0o-7", {"a": "0o-7"}),
    ("a: -0x10", {"a": "-0x10"}),
    ("a: +12", {"a": 12}),
    ("a: 012", {"a": 12}),
    ("a: 5.", {"a": 5}),
    ("a: 1e400", {"a": INF}),
    ("a: tRue", {"a": "tRue"}),
    # Keys are their text; an anchor alone is fine; `<<` is an ordinary key.
    ("{1: x}", {"1": "x"}),
    ("true: x", {"true": "x"}),
    ("~: x", {"~": "x"}),
    ("null: x", {"null": "x"}),
    ("1.5: x", {"1.5": "x"}),
    ("0x10: x", {"0x10": "x"}),
    ("? \n: x", {"": "x"}),
    ("!!str a: x", {"a": "x"}),
    ("&k a: x", {"a": "x"}),
    ("- &n {x: 1}", [{"x": 1}]),
    ("<<: {a: 1}", {"<<": {"a": 1}}),
    # Directives the decoder passes over.
    ("%FOO bar\n---\na: 1", {"a": 1}),
    ("# c\n%FOO\n\n---\na: 1", {"a": 1}),
    ("%YAML 1.3\n---\na: 1", {"a": 1}),
    ("%YAML 2.0\n---\na: 1", {"a": 1}),
    ("%YAML 1.2\n%YAML 1.2\n---\na: 1", {"a": 1}),
    ("%YAML 1.1\n---\na: yes\nb: 017", {"a": "yes", "b": 17}),
    ("%\n---\na: 1", {"a": 1}),
    # NEL, LS and PS are ordinary characters in YAML 1.2 (libyaml breaks lines at them).
    ("a: x\x85y", {"a": "x\x85y"}),
    ("a: x\u2028y", {"a": "x\u2028y"}),
    ("a: 'x\u2029y'", {"a": "x\u2029y"}),
    ("a: |\n  x\u2028y\n", {"a": "x\u2028y\n"}),
    ("a: x # c\u2028d\n", {"a": "x"}),
    ("a: x\n  \u2029y\n", {"a": "x \u2029y"}),
    # A block scalar at the very end keeps its clipped line break.
    ("a: |\n  x", {"a": "x\n"}),
    ("a: >\n  x", {"a": "x\n"}),
    ("a: |-\n  x", {"a": "x"}),
]


def same(left: object, right: object) -> bool:
    """Equal, with the types the decoder gives (True is not 1, '1' is not 1)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same, left, right))
    def number(value: object) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return (type(left) is type(right) or (number(left) and number(right))) and left == right


@pytest.mark.parametrize(("text", "expected"), DECODED)
def test_decodes_as_the_engine_does(text: str, expected: object) -> None:
    document = read_yaml(SourceText(text))
    assert [p for p in document.problems if p.severity.name == "ERROR"] == []
    assert document.root is not None
    assert same(plain_value(document.root), expected), plain_value(document.root)


# What the decoder refuses (an error: the engine does not load the file).
REFUSED = [
    ("a: &x 1\nb: *x", "yaml-syntax", (1, 3)),      # "Alias resolution is disabled"
    ("[a]: 1", "invalid-value", (0, 0)),            # NON_STRING_KEY
    ("{a: 1}: 2", "invalid-value", (0, 0)),
    ("!foo a: x", "invalid-value", (0, 0)),         # a tagged key is not a string key
    ("! a: x", "invalid-value", (0, 0)),
    ("!!int 5: x", "invalid-value", (0, 0)),
    ('1: a\n"1": b', "duplicate-key", (1, 0)),      # DUPLICATE_KEY: both are the key '1'
    ("%YAML abc\n---\na: 1", "yaml-syntax", None),  # BAD_DIRECTIVE
    ("%FOO bar\na: 1", "yaml-syntax", None),        # a directive needs `---` after it
]


@pytest.mark.parametrize(("text", "rule", "at"), REFUSED)
def test_refuses_what_the_engine_refuses(text: str, rule: str, at: tuple[int, int] | None
                                         ) -> None:
    errors = [p for p in read_yaml(SourceText(text)).problems if p.severity.name == "ERROR"]
    assert [p.rule for p in errors][:1] == [rule]
    if at is not None:
        assert (errors[0].range.start.line, errors[0].range.start.character) == at


@pytest.mark.parametrize(("text", "tag", "column"), [
    ("a: !env HOME", "!env", 3),
    ("a: &x !foo 5", "!foo", 6),
    ("a: !foo &x 5", "!foo", 3),
    ("a: !!float 5", "!!float", 3),
    ("a: !!int 1.5", "!!int", 3),
    ("a: !!binary aGVsbG8=", "!!binary", 3),
    ("é: !foo [1]", "!foo", 3),
    ("a: !inputs.flag", "!inputs.flag", 3),
])
def test_a_tag_without_effect_is_a_warning_on_the_tag(text: str, tag: str, column: int) -> None:
    (problem,) = read_yaml(SourceText(text)).problems
    assert problem.severity.name == "WARNING" and problem.rule == "yaml-syntax"
    assert (problem.range.start.character, problem.range.end.character) == (
        column, column + len(tag))
    assert f"'{tag}'" in problem.message


@pytest.mark.parametrize("text", [
    "a: !!str 5", "a: ! 5", 'a: !!int "7"', "a: !!null ~", "a: !!bool True", "a: !!set {x}",
    "a: !!seq [1]", "a: !!map {x: 1}", "a: &n 1",
])
def test_a_tag_that_does_what_it_says_is_silent(text: str) -> None:
    assert read_yaml(SourceText(text)).problems == []


def test_stand_ins_for_old_line_breaks_never_collide_with_the_text() -> None:
    # The text already uses the first private-use characters the reader could pick.
    text = "a: \U000f0000\U000f0001 x\u2028y\nb: \U000f0002\n"
    document = read_yaml(SourceText(text))
    assert document.root is not None
    assert plain_value(document.root) == {"a": "\U000f0000\U000f0001 x\u2028y",
                                          "b": "\U000f0002"}
    value = document.root.entries[1].value  # type: ignore[attr-defined]
    assert text[value.start:value.end] == "\U000f0002"


def test_an_alias_in_a_file_with_a_line_separator_in_a_comment_is_reported() -> None:
    """Aliases were looked for in the raw text, where libyaml breaks the comment's line at the
    U+2028 (the engine's YAML 1.2 does not) and then fails: read_yaml raised."""
    text = "# one\u2028two three\nk: &d v\nj: *d\n"
    problems = read_yaml(SourceText(text)).problems
    assert [(p.rule, p.range.start.line) for p in problems] == [("yaml-syntax", 2)]
