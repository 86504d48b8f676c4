"""Processes a bench starts read their modules' bytecode from a cache, as an installed package's
do (pip compiles it): with `PYTHONDONTWRITEBYTECODE` set, as in some development shells, each
would compile every module it imports again (0.1-0.3 s at every start of the server or `check`).
Each tree gets a cache folder of its own (trees share module names); the caller fills it with
an untimed first run."""

from __future__ import annotations

import os
from pathlib import Path


def cached_bytecode(folder: Path | str, environment: dict[str, str] | None = None
                    ) -> dict[str, str]:
    """`environment` (default: this process's) reading and writing bytecode under `folder`."""
    env = {**(os.environ if environment is None else environment),
           "PYTHONPYCACHEPREFIX": str(folder)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
