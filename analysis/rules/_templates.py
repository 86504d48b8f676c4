"""Shared by the template rules: every reference in every template field, with where
(`RuleContext.template_sites`, collected once per analysis)."""

from __future__ import annotations

from dataclasses import dataclass

from analysis.model import AgentDecl, ContextDecl, NodeDef, TemplateField, Workflow
from analysis.templates import TemplateRef


# Compared and hashed by value, never changed; not frozen, whose __init__ costs three times as
# much, and each template rule makes one per reference.
@dataclass(unsafe_hash=True, slots=True)
class Site:
    field: TemplateField
    ref: TemplateRef

    @property
    def where(self) -> str:
        owner = self.field.owner
        if isinstance(owner, ContextDecl):
            return f"context '{owner.key}' value"
        if isinstance(owner, AgentDecl):
            return f"agent '{owner.id}' {self.field.name}"
        assert isinstance(owner, NodeDef)
        return f"node '{owner.id}' {self.field.name}"

    @property
    def in_context(self) -> bool:
        return isinstance(self.field.owner, ContextDecl)

    def name_span(self) -> tuple[int, int]:
        return self.field.source_span(self.ref.name_start, self.ref.name_end)

    def span(self) -> tuple[int, int]:
        return self.field.source_span(self.ref.start, self.ref.end)


def collect_sites(workflow: Workflow) -> list[Site]:
    return [Site(template, ref)
            for template in workflow.template_fields() for ref in template.references]
