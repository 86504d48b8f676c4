"""`code_span`: authored text embedded in hover Markdown renders as exactly that text, in one
code span, whatever backticks and spaces it holds. Rendered by markdown-it (CommonMark), the
Markdown engine VS Code's hovers use."""

from __future__ import annotations

import html
import re

from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from analysis.ide.describe import code_span

MARKDOWN = MarkdownIt("commonmark")


def rendered(markdown: str) -> str:
    return MARKDOWN.renderInline(markdown)


def as_shown(text: str) -> str:
    """What a code span holding `text` should show: line breaks become spaces (CommonMark)."""
    shown = re.sub(r"\r\n|\r|\n", " ", text)
    return shown or " "


def test_a_template_literal_stays_one_span() -> None:
    source = '`${run.outputs["combine"].summary} (${inputs.n})`'
    assert code_span(source) == "`` " + source + " ``"
    assert rendered(f"**node x** · {code_span(source)}") == (
        f"<strong>node x</strong> · <code>{html.escape(source)}</code>"
    )


@given(st.text(alphabet="`ab $\n*_<>\\{}[]|", max_size=30))
@example("")
@example(" ")
@example("``")
@example(" a ")
@example("a`")
@example("`a` `")
def test_any_text_renders_as_itself_in_one_code_span(text: str) -> None:
    assert rendered(code_span(text)) == f"<code>{html.escape(as_shown(text), quote=True)}</code>"


@given(st.text(alphabet="`ab ", max_size=20), st.text(alphabet="`ab ", max_size=20))
def test_two_spans_side_by_side_stay_apart(first: str, second: str) -> None:
    assert rendered(f"{code_span(first)} · {code_span(second)}") == (
        f"<code>{html.escape(as_shown(first))}</code> · "
        f"<code>{html.escape(as_shown(second))}</code>"
    )
