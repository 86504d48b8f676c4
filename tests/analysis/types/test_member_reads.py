"""The member reads chained on a `run.outputs[<id>]` read (`OutputRead.members`): what the typed
checks follow through the producer's type, and whether a nullish value there surely throws."""

from analysis.document.expressions import MemberRead, Span, analyze_expression


def members(source: str) -> list[tuple[str, bool, bool]]:
    (read,) = analyze_expression(source).output_reads
    return [(member.key_name, member.throws, member.optional) for member in read.members]


def test_each_literal_member_in_order_with_its_key_span() -> None:
    (read,) = analyze_expression('run.outputs.classify["topic"].length').output_reads
    assert read.members == (MemberRead("topic", Span(22, 27), True, False),
                            MemberRead("length", Span(30, 36), True, False))


def test_optional_chaining_and_guards_make_a_nullish_base_harmless() -> None:
    assert members("run.outputs.c?.topic?.length") == [("topic", False, True),
                                                       ("length", False, True)]
    # past `?.` a plain read still throws when the value before it is nullish
    assert members("run.outputs.c?.topic.length") == [("topic", False, True),
                                                      ("length", True, False)]
    assert members("ok && run.outputs.c.a.b") == [("a", False, False), ("b", False, False)]
    assert members("(run.outputs.c.a ?? '').length") == [("a", True, False)]


def test_the_chain_stops_at_a_computed_key_or_a_write() -> None:
    assert members("run.outputs.c[key].a") == []
    assert members("run.outputs.c.a[0].b") == [("a", True, False)]
    assert members("run.outputs.c.a = 1") == []
    assert members("run.outputs.c.a.b = 1") == [("a", True, False)]
