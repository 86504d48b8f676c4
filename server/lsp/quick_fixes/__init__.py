"""Quick fixes, one module per rule family; each exports `RULES` (the rule ids it fixes) and
`fixes(context) -> list[CodeAction]`. The code-action feature finds them all here."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types

from analysis.checks.analyze import AnalysisResult
from analysis.diagnostics import Diagnostic
from analysis.document.graph import Graph
from analysis.document.model import Workflow
from server.lsp.documents import Snapshot
from server.lsp.edits import Replacement, workspace_edit


@dataclass
class FixContext:
    snapshot: Snapshot
    diagnostic: Diagnostic
    lsp_diagnostic: types.Diagnostic
    capabilities: types.ClientCapabilities

    @property
    def result(self) -> AnalysisResult:
        return self.snapshot.result

    @property
    def workflow(self) -> Workflow:
        assert self.snapshot.result.workflow is not None  # fixes run on good snapshots only
        return self.snapshot.result.workflow

    @property
    def graph(self) -> Graph:
        assert self.snapshot.result.graph is not None
        return self.snapshot.result.graph

    @property
    def text(self) -> str:
        return self.snapshot.text

    @property
    def start(self) -> int:
        return self.snapshot.lines.offset(self.diagnostic.range.start)

    @property
    def end(self) -> int:
        return self.snapshot.lines.offset(self.diagnostic.range.end)

    def data(self, key: str) -> str | None:
        value = (self.diagnostic.data or {}).get(key)
        return value if isinstance(value, str) else None

    def action(
        self, title: str, replacements: list[Replacement], *, preferred: bool = False
    ) -> types.CodeAction:
        return types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[self.lsp_diagnostic],
            is_preferred=preferred or None,
            edit=workspace_edit(self.capabilities, self.snapshot, replacements),
        )


Fixer = Callable[[FixContext], list[types.CodeAction]]


def _discover() -> dict[str, list[Fixer]]:
    by_rule: dict[str, list[Fixer]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for rule in module.RULES:
            by_rule.setdefault(rule, []).append(module.fixes)
    return by_rule


# rule id → its fixers; "*" fixers (suppression) apply to every suppressible rule
FIXERS: dict[str, list[Fixer]] = _discover()


def fixes_for(context: FixContext) -> list[types.CodeAction]:
    actions = []
    for fixer in [*FIXERS.get(context.diagnostic.rule, []), *FIXERS.get("*", [])]:
        actions.extend(fixer(context))
    return actions
