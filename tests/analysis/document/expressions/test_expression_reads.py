"""`run.outputs` reads from the syntax tree, graded against the engine's scan."""

import pytest

from analysis.document.expressions import OutputRead, ReadForm, ReadGrade, analyze_expression


def reads(expression: str) -> list[tuple[str, ReadForm, ReadGrade]]:
    return [(r.node_id, r.form, r.grade) for r in analyze_expression(expression).output_reads]


ENGINE, TREE = ReadGrade.ENGINE, ReadGrade.SYNTAX_TREE
DOT, BRACKET, TEMPLATE = ReadForm.DOT, ReadForm.BRACKET, ReadForm.TEMPLATE


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('run.outputs["classify"].label === "high"', [("classify", BRACKET, ENGINE)]),
        ("run?.outputs?.a ?? 0", [("a", DOT, ENGINE)]),
        ('run?.outputs?.["a"]?.b', [("a", BRACKET, ENGINE)]),
        ("(run?.outputs)?.a", [("a", DOT, TREE)]),
        ("run.outputs.a += 1", [("a", DOT, ENGINE)]),  # a compound assignment reads first
        # The engine gives up on the whole expression; the tree still sees each true read.
        ('run.outputs["a"].n / 2', [("a", BRACKET, TREE)]),
        ('/x/.test(run.outputs["a"].s)', [("a", BRACKET, TREE)]),
        ('`${run.outputs["a"].s}`', [("a", BRACKET, TREE)]),
        ("r\\u0075n.outputs.a", [("a", DOT, TREE)]),
        ("run.outputs.\\u0061", [("a", DOT, TREE)]),
        ('run.outputs["cl\\u0061ssify"]', [("classify", BRACKET, TREE)]),
        ("run.outputs[`a`]", [("a", TEMPLATE, TREE)]),
        ('run["outputs"]["a"]', [("a", BRACKET, TREE)]),
        ("(run).outputs.a", [("a", DOT, TREE)]),  # `run)`: the engine fears a rebinding
        ('(run.outputs)["a"]', [("a", BRACKET, TREE)]),
        ('typeof run === "object" && run.outputs.a', [("a", DOT, TREE)]),
        # Mixed: the engine grades only what its scan sees.
        ("run.outputs.a + run.outputs.b", [("a", DOT, ENGINE), ("b", DOT, ENGINE)]),
    ],
)
def test_true_reads(expression: str, expected: list[tuple[str, ReadForm, ReadGrade]]) -> None:
    assert reads(expression) == expected


@pytest.mark.parametrize(
    "expression",
    [
        '"run.outputs.a"',
        "'run.outputs[\"a\"]'",
        "`run.outputs.a`",
        "`${'run.outputs.a'}`",
        "// run.outputs.a\n1",
        "/* run.outputs.a */ 1",
        "/run.outputs.a/.test(x)",
        "foo.run.outputs.a",
        "foo?.run.outputs.a",
        "foo.run?.outputs.a",
        "rerun.outputs.a",
        "run.outputs[k]",
        "run.outputs[`${k}`]",
        'run.outputs["a" + k]',
        "run.outputs",
        "run.other.a",
        "const_ => run.outputsX.a",
        # `run` shadowed: parameter, destructuring, declaration, catch, class, function name
        "((run) => run.outputs.a)(x)",
        "(run => run.outputs.a)(x)",
        "(({ run }) => run.outputs.a)(x)",
        "(({ r: run }) => run.outputs.a)(x)",
        "(([run]) => run.outputs.a)(x)",
        "((...run) => run.outputs.a)(x)",
        "((run = 1) => run.outputs.a)(x)",
        "(function (run) { return run.outputs.a })(x)",
        "(function run() { return run.outputs.a })",
        "(() => { const run = x; return run.outputs.a })()",
        "(() => { let { run } = x; return run.outputs.a })()",
        "(() => { if (y) { var run = x } return run.outputs.a })()",
        "(() => { try { f() } catch (run) { return run.outputs.a } })()",
        "(() => { try { f() } catch ({ run }) { return run.outputs.a } })()",
        "(() => { for (const run of xs) { return run.outputs.a } })()",
        "(() => { for (let run = 0; ; ) return run.outputs.a })()",
        "(() => { function run() {} return run.outputs.a })()",
        "(() => { class run {} return run.outputs.a })()",
        "(class run { m() { return run.outputs.a } })",
        "(class { static { const run = x; run.outputs.a } })",
        "({ m(run) { return run.outputs.a } })",
        "((r\\u0075n) => run.outputs.a)(x)",
        "(() => { with (o) { return run.outputs.a / 1 } })()",
        # aliases are not literal reads
        "((o) => o.a)(run.outputs)",
        "(({ outputs }) => outputs.a)(run)",
        # writes and deletes are not reads (the engine's scan is not asked: see the `/`)
        "run.outputs.a = 1 / 1",
        "delete run.outputs.a / 1",
    ],
)
def test_never_a_read_that_is_not_there(expression: str) -> None:
    assert reads(expression) == []


def test_shadowing_is_scoped() -> None:
    # The parameter shadows only inside its arrow; the read after it is the scope's.
    assert reads("((run) => run)(1) && run.outputs.a") == [("a", DOT, TREE)]
    assert reads("(() => { { let run = 1 } return run.outputs.a })()") == [("a", DOT, TREE)]


def test_spans_are_code_points_with_non_ascii_text() -> None:
    expression = '"Grüße 𝄞" + run.outputs["ünï-code"].x + run.outputs.b'
    first, second = analyze_expression(expression).output_reads
    assert expression[first.key.start : first.key.end] == "ünï-code"
    assert expression[first.access.start : first.access.end] == 'run.outputs["ünï-code"]'
    assert expression[second.key.start : second.key.end] == "b"
    assert first.grade is ReadGrade.ENGINE


def test_escaped_key_span_covers_the_raw_text() -> None:
    expression = 'run.outputs["\\u0061b"] / 1'
    (read,) = analyze_expression(expression).output_reads
    assert read.node_id == "ab"
    assert expression[read.key.start : read.key.end] == "\\u0061b"


def test_broken_code_keeps_only_the_engine_reads() -> None:
    # The engine scans without parsing, so it refuses even a file whose expression is broken.
    facts = analyze_expression('run.outputs["a"] +')
    assert facts.broken
    assert facts.output_reads == (
        OutputRead("a", facts.output_reads[0].key, facts.output_reads[0].access, BRACKET, ENGINE),
    )
    assert reads("run.outputs.a / +") == []  # no tree scan on broken code


def test_engine_only_quirk_is_still_an_error() -> None:
    # `𝑥run` is one identifier, but the engine's UTF-16 walk reads it as a free `run`.
    assert reads("𝑥run.outputs.a") == [("a", DOT, ENGINE)]


def test_a_write_the_engine_scan_matches_is_still_refused_by_the_engine() -> None:
    assert reads("run.outputs.a = 1") == [("a", DOT, ENGINE)]


def test_engine_truncated_dot_key_is_its_own_read() -> None:
    # The engine's ASCII pattern reads `ab` out of `abé`; the real key is `abé`. Both matter:
    # the engine refuses the workflow if `ab` is a non-ancestor node, and `abé` is what is read.
    assert reads("run.outputs.abé") == [("abé", DOT, TREE), ("ab", DOT, ENGINE)]
