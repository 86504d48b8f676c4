"""`relavium-lsp check` on models from the engine's registry and gates without a timeout, as a
project in the engine's layout runs it: information and warnings are reported, never errors,
so the run passes."""

import json
from pathlib import Path

from tests.conftest import relavium_lsp

WORKFLOW = """schema_version: '1.0'
workflow:
  id: review
  agents:
    - { id: old, model: deepseek-chat, provider: deepseek, system_prompt: s }
    - { id: picky, model: gpt-5-pro, provider: openai, system_prompt: s, reasoning_effort: low }
    - { id: custom, model: my-fine-tune, provider: openai, system_prompt: s, reasoning_effort: max }
  nodes:
    - { id: start, type: input }
    - { id: a, type: agent, agent_ref: old, prompt_template: p }
    - { id: b, type: agent, agent_ref: picky, prompt_template: p }
    - { id: c, type: agent, agent_ref: custom, prompt_template: p }
    - { id: approve, type: human_gate, gate_type: approval }
  edges:
    - { from: start, to: a }
    - { from: a, to: b }
    - { from: b, to: c }
    - { from: c, to: approve }
"""

AGENT = """id: thinker
provider: deepseek
model: deepseek-reasoner
system_prompt: Think.
reasoning_effort: high
"""


def test_check_reports_the_registry_facts_and_passes(tmp_path: Path) -> None:
    workflows = tmp_path / ".relavium" / "workflows"
    agents = tmp_path / ".relavium" / "agents"
    workflows.mkdir(parents=True)
    agents.mkdir()
    (workflows / "review.relavium.yaml").write_text(WORKFLOW, encoding="utf-8")
    (agents / "thinker.agent.yaml").write_text(AGENT, encoding="utf-8")
    result = relavium_lsp("check", "--no-config", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    found = sorted(
        (Path(each["path"]).name, each["range"]["start"]["line"] + 1, each["code"],
         each["severity"])
        for each in json.loads(result.stdout)
    )
    assert found == [
        ("review.relavium.yaml", 5, "deprecated-model", "information"),
        ("review.relavium.yaml", 6, "withheld-reasoning-effort", "information"),
        ("review.relavium.yaml", 13, "human-gate-without-timeout", "warning"),
        # the unlisted `my-fine-tune` says nothing: the engine sends it as written
        ("thinker.agent.yaml", 3, "deprecated-model", "information"),
        ("thinker.agent.yaml", 5, "withheld-reasoning-effort", "information"),
    ]
    messages = {each["code"]: each["message"] for each in json.loads(result.stdout)
                if each["path"].endswith("review.relavium.yaml")}
    assert messages["withheld-reasoning-effort"] == (
        "model 'gpt-5-pro' does not take reasoning_effort 'low' (it takes high): the engine "
        "withholds this reasoning_effort and sends none; choose a tier it takes or remove it")
