"""The package's public names are loaded from their modules on first use (sandbox/__init__.py)."""

from importlib import import_module

import pytest

import sandbox
from sandbox import _MODULES


@pytest.mark.parametrize("name", sorted(_MODULES))
def test_each_public_name_is_its_module_s_object(name: str) -> None:
    assert getattr(sandbox, name) is getattr(import_module(_MODULES[name]), name)


def test_the_public_names_are_exactly_those_listed() -> None:
    assert sorted(sandbox.__all__) == sorted(_MODULES)
    assert set(sandbox.__all__) <= set(dir(sandbox))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'evaluator_pool'"):
        getattr(sandbox, "evaluator_pool")  # noqa: B009 (the name is the point)
