"""No quadratic scan anywhere in an analysis (issue 12, target 2): adversarial inputs 10x larger
cost at most about 10x more work.

The witness is an operation count, not time (`tests.operations`): the Python lines executed in
`analysis/` and `sandbox/`. Native work (libyaml, tree-sitter) is not counted; it is linear in its
input.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from analysis.checks.analyze import analyze
from tests.operations import lines_executed

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: adversarial
  inputs:
    - {{ name: topic, type: string }}
  nodes:
    - {{ id: start, type: input }}
    - id: calc
      type: transform
      transform: |-
        {expression}
    - id: ask
      type: agent
      agent_ref: writer
      prompt_template: |-
        {template}
  agents:
    - {{ id: writer, model: m, provider: anthropic }}
  edges:
    - {{ from: start, to: calc }}
    - {{ from: calc, to: ask }}
"""


def operations(text: str) -> int:
    """Python lines executed in this project's packages while analysing `text`."""
    analyze(workflow("warm + up", "{{ inputs.topic }}"))  # one-time work (imports, caches)
    return lines_executed(lambda: analyze(text), "analysis", "sandbox")


def workflow(expression: str = "1", template: str = "hello") -> str:
    indent = "\n        "
    return WORKFLOW.format(
        expression=expression.replace("\n", indent), template=template.replace("\n", indent)
    )


# each: n → a workflow whose adversarial part grows linearly with n
SHAPES: dict[str, Callable[[int], str]] = {
    # the reproducer: a `{{` in code position per element
    "many braces in code": lambda n: workflow("[" + "()=>{{}}," * n + "]"),
    "unclosed braces": lambda n: workflow("[" + "{{ " * n + "]"),
    "braces among strings and comments": lambda n: workflow(
        "[" + "()=>{{}}, '{{', /* {{ */ `{{ ${x} }}`, // {{\n" * n + "]"
    ),
    "braces after an unterminated string": lambda n: workflow("f('" + "{{ x }} " * n),
    "one long line": lambda n: workflow(
        " + ".join(f'run.outputs["start"].v{i}' for i in range(n))
    ),
    # a sixth as deep: QuickJS's parser (the syntax check) refuses some 200 levels
    "deep nesting": lambda n: workflow(
        "f(x => [" * (n // 6) + 'run.outputs["start"].v, x, y' + "])" * (n // 6)
    ),
    "many lines": lambda n: workflow("(\n" + '  run.outputs["start"].v +\n' * n + "  1)"),
    "template with many references": lambda n: workflow(
        template="{{ inputs.topic }} {{ ctx.x }} {{ run.outputs[\"calc\"] | json }}\n" * n
    ),
    "template with unclosed references": lambda n: workflow(template="{{ [ ( " * n),
    "template with quoted braces": lambda n: workflow(
        template="{{ inputs.topic | default(\"}} {{ '\") }}" * n
    ),
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_ten_times_the_input_costs_at_most_about_ten_times_the_work(shape: str) -> None:
    make = SHAPES[shape]
    small, large = 60, 600
    base = operations(make(1))
    grown_small = operations(make(small)) - base
    grown_large = operations(make(large)) - base
    assert grown_small > 0
    assert grown_large <= 13 * grown_small, (shape, grown_small, grown_large)


def parallel_of_many(n: int) -> str:
    """A parallel node with n members and an edge to each (and one edge to a non-member)."""
    members = ", ".join(f"m{i}" for i in range(n))
    nodes = "".join(f"    - {{ id: m{i}, type: transform, transform: '1' }}\n" for i in range(n))
    edges = "".join(f"    - {{ from: p, to: m{i} }}\n" for i in range(n))
    return ("schema_version: '1.0'\nworkflow:\n  id: fan\n  nodes:\n"
            "    - { id: start, type: input }\n"
            f"    - {{ id: p, type: parallel, parallel_of: [{members}] }}\n{nodes}"
            "    - { id: stray, type: transform, transform: '1' }\n"
            f"  edges:\n    - {{ from: start, to: p }}\n{edges}    - {{ from: p, to: stray }}\n")


def context_key_repeated(n: int) -> str:
    """One context key declared n times, each value reading itself (n findings)."""
    entries = "    - { key: k, value: '{{ ctx.k }}' }\n" * n
    return ("schema_version: '1.0'\nworkflow:\n  id: ctx\n  context:\n" + entries
            + "  nodes:\n    - { id: start, type: input }\n  edges: []\n")


# each: n → a whole workflow whose lists grow linearly with n
DOCUMENTS: dict[str, Callable[[int], str]] = {
    "a parallel's members, an edge to each": parallel_of_many,
    "one context key repeated": context_key_repeated,
}


@pytest.mark.parametrize("shape", DOCUMENTS, ids=list(DOCUMENTS))
def test_ten_times_the_workflow_lists_cost_at_most_about_ten_times_the_work(shape: str) -> None:
    make = DOCUMENTS[shape]
    small, large = operations(make(100)), operations(make(1000))
    assert large <= 12 * small, (shape, small, large)
