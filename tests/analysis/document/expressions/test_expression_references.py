"""Forbidden globals, `inputs` / `ctx` reads, `branches` uses and `{{` in code."""

import pytest

from analysis.document.expressions import FORBIDDEN_GLOBALS, analyze_expression


def forbidden(expression: str) -> list[tuple[str, str]]:
    facts = analyze_expression(expression)
    return [(use.name, expression[use.span.start : use.span.end]) for use in facts.forbidden]


@pytest.mark.parametrize("name", sorted(FORBIDDEN_GLOBALS))
def test_each_forbidden_global_when_free(name: str) -> None:
    assert forbidden(f"{name}(1)") == [(name, name)]
    assert forbidden(f"globalThis.{name}") == [(name, f"globalThis.{name}")]
    assert forbidden(f"((x, {name}) => {name}(1))") == []


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("new Date().getTime()", [("Date", "Date")]),
        ("Math.random() > 0.5", [("Math.random", "Math.random")]),
        ('Math["random"]()', [("Math.random", 'Math["random"]')]),
        ("Math.floor(1.5)", []),
        ("async () => 1", [("async", "async")]),
        ("(async function () { return await f() })", [("async", "async"), ("await", "await")]),
        ('import("fs")', [("import", "import")]),
        ("({ Date })", [("Date", "Date")]),
        ('typeof Date === "undefined"', []),  # typeof of an absent global is safe
        ("x.Date + x.fetch", []),  # properties, not globals
        ("((Math) => Math.random())(m)", []),
        ('"Date" + `Math.random()` // fetch', []),
        ("async(1) + async", []),  # an identifier named async is not the keyword
    ],
)
def test_forbidden_uses(expression: str, expected: list[tuple[str, str]]) -> None:
    assert forbidden(expression) == expected


def test_scope_reads_with_keys_and_spans() -> None:
    expression = 'inputs.ticket_text + inputs["crm-tök"] + ctx?.team + inputs[k] + x.inputs.y'
    reads = analyze_expression(expression).scope_reads
    assert [(r.binding, r.key_name) for r in reads] == [
        ("inputs", "ticket_text"),
        ("inputs", "crm-tök"),
        ("ctx", "team"),
    ]
    assert expression[reads[1].key.start : reads[1].key.end] == "crm-tök"
    assert expression[reads[2].access.start : reads[2].access.end] == "ctx?.team"


def test_shadowed_scope_bindings_are_not_reads() -> None:
    facts = analyze_expression("((inputs, { ctx }) => inputs.a + ctx.b)(x, y)")
    assert facts.scope_reads == ()


def test_branches_uses() -> None:
    expression = "{ ...branches[0], n: branches.length, o: (branches => branches)(1) }"
    spans = analyze_expression(expression).branches_uses
    assert [expression[s.start : s.end] for s in spans] == ["branches", "branches"]
    assert len(spans) == 2
    assert analyze_expression("x.branches + 'branches'").branches_uses == ()


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("{{ inputs.x }} == 'a'", ["{{ inputs.x }}"]),
        ("x => {{a: 1}}", ["{{a: 1}}"]),  # valid JS: the rule reports only with a syntax error
        ("'{{ inputs.x }}' + `{{y}}` // {{z}}", []),
        ("{ a: { b: 1 } }", []),
        ("a + {{ b", ["{{"]),
        ("'{{ inputs.x }}", []),  # an unterminated string: its text is not code
        ("`{{ x }}", []),
        ('"\\"" + {{ y }} + `', ["{{ y }}"]),
    ],
)
def test_template_braces_in_code(expression: str, expected: list[str]) -> None:
    spans = analyze_expression(expression).template_braces
    assert [expression[s.start : s.end] for s in spans] == expected


def test_broken_code_skips_tree_scans() -> None:
    facts = analyze_expression("Date( + inputs.x")
    assert facts.broken
    assert facts.forbidden == () and facts.scope_reads == ()


@pytest.mark.parametrize(
    "expression", ["<div>{Date}</div>", "[<br />, 1]", "a) + (Date", "1; Date"]
)
def test_not_one_expression_counts_as_broken(expression: str) -> None:
    assert analyze_expression(expression).broken


@pytest.mark.parametrize("expression", ["inputs.a < 2 && ctx.b > 1", "a <b> c", "Date"])
def test_comparisons_are_no_jsx(expression: str) -> None:
    assert not analyze_expression(expression).broken


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("JSON.stringify(ctx)", ["ctx"]),
        ("JSON.stringify(inputs, undefined, 2)", ["inputs"]),
        ("({ ...inputs, a: 1 })", ["inputs"]),
        ("Object.values(ctx).concat(Object.entries(inputs))", ["ctx", "inputs"]),
        ("Object.assign({}, ctx)", ["ctx"]),
        ("JSON.stringify(ctx, ['a'])", []),  # the replacer picks the keys
        ("Object.keys(inputs)", []),  # key-only enumeration reads no value
        ("Object.assign(ctx, {})", []),  # a target, not a source
        ("f(inputs) + [...ctx]", []),  # unknown use; not an object spread
        ("((JSON) => JSON.stringify(ctx))(j)", []),  # not the real JSON
    ],
)
def test_whole_binding_reads(expression: str, expected: list[str]) -> None:
    reads = analyze_expression(expression).whole_scope_reads
    assert [read.binding for read in reads] == expected
