"""Issue 9 item 7: no key or value from inside a secret input or a denied context entry appears
in any scope-validation message, through the Python API or `relavium-lsp eval --scope`.

Secret values are dropped before the scope is validated, so a secret that would itself fail
validation (too deep, NaN, a non-string key, a non-JSON type, a non-string context value) is
simply a denied key, and an error elsewhere in the scope never quotes the secret.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sandbox import Scope, ScopeError, evaluate
from sandbox.scope import MAX_SCOPE_DEPTH

KEY_MARK = "sk-live-KEYMARK"
VALUE_MARK = "sk-live-VALUEMARK"


def nested(levels: int, key: str = KEY_MARK, leaf: str = VALUE_MARK) -> Any:
    value: Any = leaf
    for _ in range(levels):
        value = {key: value}
    return value


# Secret values that would each fail validation if they were checked.
SECRET_VALUES: dict[str, Any] = {
    "deeper than the limit": nested(MAX_SCOPE_DEPTH + 5),
    "list deeper than the limit": [nested(MAX_SCOPE_DEPTH + 5)],
    "NaN inside": {KEY_MARK: math.nan, "v": VALUE_MARK},
    "infinity": math.inf,
    "non-string key": {1: VALUE_MARK, KEY_MARK: 2},
    "non-JSON type": {KEY_MARK: {VALUE_MARK}},
    "plain": {KEY_MARK: VALUE_MARK},
}
# Errors elsewhere in the same scope: each must be reported, without the secret.
OTHER_ERRORS: dict[str, dict[str, Any]] = {
    "none": {},
    "deep clean input": {"inputs": {"clean": nested(MAX_SCOPE_DEPTH + 5, "k", "v")}},
    "NaN in outputs": {"run": {"outputs": {"n": math.nan}}},
    "non-string context value": {"ctx": {"region": 5}},
    "unknown field": {"bogus": 1},
    "duplicate secret name": {"secret_inputs": ["api_key", "api_key"]},
    "branches not a list": {"branches": {KEY_MARK.lower(): 1}},
}


def scope_document(secret: Any, other: dict[str, Any]) -> dict[str, Any]:
    document: dict[str, Any] = {
        "inputs": {"api_key": secret, "clean": 1},
        "ctx": {"region": "eu", "token": secret},
        "secret_inputs": ["api_key"],
        "secret_ctx": ["token"],
    }
    for field, value in other.items():
        if isinstance(value, dict) and isinstance(document.get(field), dict):
            document[field] = {**document[field], **value}
        else:
            document[field] = value
    return document


def assert_no_secret(text: str) -> None:
    assert KEY_MARK not in text
    assert VALUE_MARK not in text


@pytest.mark.parametrize("other", list(OTHER_ERRORS))
@pytest.mark.parametrize("secret", list(SECRET_VALUES))
def test_scope_validation_never_quotes_a_secret(secret: str, other: str) -> None:
    document = scope_document(SECRET_VALUES[secret], OTHER_ERRORS[other])
    try:
        scope = Scope.from_json(document)
    except ScopeError as error:
        assert other != "none", f"a secret alone must not fail validation: {error}"
        assert_no_secret(str(error))
        return
    assert other == "none"
    assert scope.denied_inputs == ("api_key",)
    assert_no_secret(json.dumps(scope.to_json()))
    assert_no_secret(scope.vm_request("transform", "x"))
    # The denied key is still there, and reading it is a denial, not a value.
    assert evaluate("Object.keys(inputs).concat(Object.keys(ctx))", "transform", scope) == [
        "api_key", "clean", "region", "token",
    ]


def run_eval(scope_path: Path, expression: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "eval", "--kind", "transform", "--expr", expression,
         "--scope", str(scope_path), "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


# The file forms: JSON cannot carry NaN, sets or non-string keys.
FILE_SECRETS = ["deeper than the limit", "list deeper than the limit", "plain"]
FILE_ERRORS = ["none", "deep clean input", "non-string context value", "unknown field",
               "duplicate secret name", "branches not a list"]  # fmt: skip


@pytest.mark.parametrize("other", FILE_ERRORS)
@pytest.mark.parametrize("secret", FILE_SECRETS)
def test_eval_scope_output_never_quotes_a_secret(
    tmp_path: Path, secret: str, other: str
) -> None:
    path = tmp_path / "scope.json"
    path.write_text(json.dumps(scope_document(SECRET_VALUES[secret], OTHER_ERRORS[other])))
    for expression in ("inputs.clean", "inputs.api_key", "JSON.stringify(ctx)"):
        result = run_eval(path, expression)
        assert_no_secret(result.stdout + result.stderr)
        assert result.returncode == (2 if other != "none" else 0 if expression ==
                                     "inputs.clean" else 1)  # fmt: skip
