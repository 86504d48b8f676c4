"""The renderer bundle the Python package ships (analysis/ide/graph_assets/) is what
editors/graph's sources build, and ships with its licence notice."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import REPO_ROOT

RENDERER = REPO_ROOT / "editors" / "graph"
ASSETS = REPO_ROOT / "analysis" / "ide" / "graph_assets"


def test_the_committed_bundle_is_what_the_sources_build() -> None:
    if shutil.which("node") is None:
        pytest.skip("Node is not installed; scripts/test runs `npm run check` in editors/graph")
    if not (RENDERER / "node_modules" / "esbuild").is_dir():
        pytest.skip("editors/graph has no node_modules (`npm ci` there); scripts/test runs "
                    "`npm run check` after installing them")
    result = subprocess.run(["node", "build.mjs", "--check"], cwd=RENDERER, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_the_bundle_ships_with_its_licence_notice() -> None:
    bundle = (ASSETS / "relavium-graph.js").read_text(encoding="utf-8")
    notice = (ASSETS / "THIRD_PARTY_NOTICES.txt").read_text(encoding="utf-8")
    assert bundle.startswith("/* Relavium workflow graph renderer. Bundles @dagrejs/dagre")
    for package in ("@dagrejs/dagre", "@dagrejs/graphlib"):
        assert f"== {package} " in notice
    assert notice.count("Permission is hereby granted, free of charge") == 2
    assert "</script" not in bundle.lower()  # it is inlined in the HTML page
