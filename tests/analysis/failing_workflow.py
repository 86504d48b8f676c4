"""The nodes of a workflow whose transform throws a TypeError on the line after a non-ASCII one:
the dry-run tests' case for the author's own error and the range of the failing token."""

from __future__ import annotations

FAILING_NODES = """\
  nodes:
    - { id: start, type: input }
    - id: check-amount
      type: transform
      transform: |
        ["é😀",
         2].map(x => null.risk)
  edges:
    - { from: start, to: check-amount }
"""
