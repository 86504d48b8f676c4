"""Hostile TOML, in process (issue 21, item 7): whatever a `pyproject.toml` or an explicit file
holds, `find_config` / `load_config` end in a configuration or a `ConfigError`, never another
exception (tomllib recursed to RecursionError on deep nesting, which crashed `check`, `run` and
the server's `initialized` handler)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.project.config import ConfigError, find_config, load_config

OPENERS = st.lists(st.sampled_from(["[", "{a = ", "{ b = [", "[1, "]), min_size=1, max_size=8)
CLOSERS = {"[": "]", "{a = ": "}", "{ b = [": "]}", "[1, ": "]"}


@settings(max_examples=40, deadline=None)
@given(OPENERS, st.integers(1, 3000), st.booleans(), st.booleans(),
       st.sampled_from(["", "1", '"s"', "[", "}", "= ="]))
def test_nested_toml_ends_in_a_config_or_a_config_error(
    shape: list[str], depth: int, ours: bool, closed: bool, inner: str
) -> None:
    openers = [shape[level % len(shape)] for level in range(depth)]
    value = "".join(openers) + inner + ("".join(CLOSERS[o] for o in reversed(openers))
                                        if closed else "")
    table = "[tool.relavium-lsp]\n" if ours else "[project]\n"
    with tempfile.TemporaryDirectory() as folder:
        pyproject = Path(folder, "pyproject.toml")
        pyproject.write_text(f"{table}weird = {value}\n", encoding="utf-8")
        found = find_config(Path(folder))
        # the table is named on a line of its own: a file that does not read is still ours
        assert found == (pyproject.resolve() if ours else None)
        try:
            load_config(pyproject)
        except ConfigError as error:
            assert str(pyproject.resolve()) in str(error)
