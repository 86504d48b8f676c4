"""The analysis a read-only request (completion, hover, navigation) is answered from, and the
mapping between the client's live text and that analysis's text.

While the YAML is half-typed the newest analysis has no model, so requests are served from the
last good one, whose offsets refer to older text. `View` maps between the two through their common
prefix and suffix: offsets before the edited region are unchanged, offsets after it shift by the
length difference, and a place inside the edited region has no counterpart on the other side (it
is dropped rather than shown somewhere wrong).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

from lsprotocol import types

from analysis.checks.analyze import AnalysisResult
from analysis.document.model import Workflow
from analysis.document.source import changed_span
from analysis.project.kinds import FileKind
from server.lsp.documents import Snapshot
from server.lsp.language_server import RelaviumLanguageServer
from server.lsp.positions import LineIndex


async def agent_view_of(ls: RelaviumLanguageServer, uri: str) -> View | None:
    """The newest analysis of an open agent file (no workflow model: what the agent schema and
    the diagnostics say), None for any other document."""
    state = ls.document(uri)
    snapshot = await ls.fresh_snapshot(uri) if state is not None else None
    state = ls.document(uri)
    if snapshot is None or state is None or snapshot.result.kind is not FileKind.AGENT:
        return None
    return View(snapshot, state.text)


T = TypeVar("T")
P = TypeVar("P")


@dataclass
class View:
    snapshot: Snapshot
    live: str  # the document's text as the client has it now

    @property
    def result(self) -> AnalysisResult:
        return self.snapshot.result

    @property
    def workflow(self) -> Workflow:
        assert self.snapshot.result.workflow is not None
        return self.snapshot.result.workflow

    @cached_property
    def current(self) -> bool:
        """Whether the analysis is of exactly the live text (asked for each offset placed: a
        text from the analysis process is equal to the live one, not the same object)."""
        return self.snapshot.text == self.live

    @cached_property
    def _common(self) -> tuple[int, int]:
        """The lengths of the common prefix and (not overlapping it) common suffix."""
        start, old_end, _ = changed_span(self.snapshot.text, self.live)
        return start, len(self.snapshot.text) - old_end

    @cached_property
    def live_lines(self) -> LineIndex:
        if self.current:  # the analysis found the line starts (33 ms for 1 MB)
            return self.snapshot.lines
        return LineIndex(self.live, self.snapshot.encoding)

    def to_snapshot(self, live_offset: int) -> int | None:
        """The snapshot offset of a live offset, None strictly inside the edited region (text
        the analysis has not seen)."""
        if self.current:
            return live_offset
        prefix, suffix = self._common
        if live_offset <= prefix:
            return live_offset
        if live_offset >= len(self.live) - suffix:
            return live_offset - len(self.live) + len(self.snapshot.text)
        return None

    def to_live(self, offset: int) -> int | None:
        """The live offset of a snapshot offset, None inside the edited region."""
        if self.current:
            return offset
        prefix, suffix = self._common
        if offset <= prefix:
            return offset
        if offset >= len(self.snapshot.text) - suffix:
            return offset - len(self.snapshot.text) + len(self.live)
        return None

    def live_offset(self, position: types.Position) -> int:
        return self.live_lines.client_offset(position)

    def offset(self, position: types.Position) -> int | None:
        """A client position in the live text as a snapshot offset (None inside the edit)."""
        return self.to_snapshot(self.live_offset(position))

    def client_range(self, start: int, end: int) -> types.Range | None:
        """Snapshot offsets as a live client range (None when the place was edited away)."""
        live_start, live_end = self.to_live(start), self.to_live(end)
        if live_start is None or live_end is None:
            return None
        return types.Range(
            start=self.client_position(live_start), end=self.client_position(live_end)
        )

    def client_position(self, live_offset: int) -> types.Position:
        line, character = self.client_point(live_offset)
        return types.Position(line=line, character=character)

    def client_point(self, live_offset: int) -> tuple[int, int]:
        """A live offset as (line, character in client units)."""
        return self.live_lines.client_point(live_offset)


async def view_of(ls: RelaviumLanguageServer, uri: str) -> View | None:
    """The newest analysis with a model for an open workflow document (None: unknown, closed, or
    never parsed)."""
    state = ls.document(uri)
    if state is None:
        return None
    snapshot = await ls.fresh_snapshot(uri)
    if snapshot is None or not snapshot.is_good:
        snapshot = ls.last_good_snapshot(uri)
    state = ls.document(uri)
    if snapshot is None or state is None or snapshot.result.workflow is None:
        return None
    return View(snapshot, state.text)


async def placed_answer(
    ls: RelaviumLanguageServer,
    uri: str,
    question: Callable[[AnalysisResult], T],
    place: Callable[[View, T], P],
) -> P | None:
    """`question` answered from the newest analysis with a model of an open workflow document,
    and `place`d in the live text through the view (None: unknown, closed, or never parsed).

    A large document's question is answered in the analysis process, where its model is (see
    server/lsp/worker/): `question` must then be a module-level function returning plain
    data, the view's snapshot has no model, and `place` runs on a thread of its own (placing
    a 5,000-node outline converts some 40,000 offsets, a few hundred milliseconds that would
    hold up every other request on the event loop)."""
    asked = await ls.ask_analysis_process(uri, question)
    if asked is None:
        view = await view_of(ls, uri)
        return place(view, question(view.result)) if view is not None else None
    snapshot, answer = asked
    state = ls.document(uri)
    if state is None:
        return None
    return await asyncio.to_thread(place, View(snapshot, state.text), answer)
