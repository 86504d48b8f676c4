"""Shared by the template rules: every reference in every template field, with where
(`RuleContext.template_sites`, collected once per analysis)."""

from __future__ import annotations

from dataclasses import dataclass

from analysis.document.model import AgentDecl, ContextDecl, NodeDef, TemplateField, Workflow
from analysis.document.templates import TemplateRef


# Compared and hashed by value, never changed; not frozen, whose __init__ costs three times as
# much, and each template rule makes one per reference.
@dataclass(unsafe_hash=True, slots=True)
class Site:
    field: TemplateField
    ref: TemplateRef
    # The node, context entry or agent declaration holding the field, held here: the field's
    # own link to it is weak, and the rules ask for it on most sites.
    owner: object

    @property
    def where(self) -> str:
        owner = self.owner
        if isinstance(owner, ContextDecl):
            return f"context '{owner.key}' value"
        if isinstance(owner, AgentDecl):
            return f"agent '{owner.id}' {self.field.name}"
        assert isinstance(owner, NodeDef)
        return f"node '{owner.id}' {self.field.name}"

    @property
    def in_context(self) -> bool:
        return isinstance(self.owner, ContextDecl)

    def name_span(self) -> tuple[int, int]:
        return self.field.source_span(self.ref.name_start, self.ref.name_end)

    def span(self) -> tuple[int, int]:
        return self.field.source_span(self.ref.start, self.ref.end)


def collect_sites(workflow: Workflow) -> list[Site]:
    sites: list[Site] = []
    for template in workflow.template_fields():
        references = template.references
        if references:
            owner = template.owner
            sites.extend(Site(template, ref, owner) for ref in references)
    return sites
