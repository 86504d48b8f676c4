"""The schema a node's output is held to: an agent node's own `output_schema`, else its inline
agent's (`node.output_schema ?? agent.output_schema`, HodeTech/Relavium
packages/core/src/engine/agent-runner.ts, issue 27 item 9). Its type: tests/analysis/types/
test_dataflow.py."""

from analysis.document.model import Workflow
from analysis.document.model_build import build_workflow
from analysis.document.source import SourceText
from analysis.document.yaml_read import read_yaml


def workflow(agent_schema: str, node_schema: str, node_type: str = "agent") -> Workflow:
    agent = "    - { id: writer, model: m, provider: anthropic, system_prompt: s%s }"
    node = "    - { id: draft, type: %s, agent_ref: writer, transform: '1'%s }"
    text = f"""schema_version: '1.0'
workflow:
  id: demo
  agents:
{agent % agent_schema}
    - {{ $ref: ./other.agent.yaml }}
  nodes:
{node % (node_type, node_schema)}
    - {{ id: other, type: agent, agent_ref: elsewhere }}
  edges: []
"""
    return build_workflow(read_yaml(SourceText(text)))


def schema_text(flow: Workflow, node_id: str = "draft") -> str | None:
    node = flow.node(node_id)
    assert node is not None
    entry = flow.output_schema_of(node)
    return flow.source.text[entry.value.start:entry.value.end] if entry is not None else None


AGENT = ", output_schema: { type: string }"
NODE = ", output_schema: { type: number }"


def test_the_nodes_own_schema_wins() -> None:
    assert schema_text(workflow(AGENT, NODE)) == "{ type: number }"


def test_an_agent_node_without_one_is_held_to_its_agents() -> None:
    assert schema_text(workflow(AGENT, "")) == "{ type: string }"
    assert schema_text(workflow(AGENT, ", output_schema: ~")) == "{ type: string }"  # `??`


def test_only_an_agent_node_inherits() -> None:
    assert schema_text(workflow(AGENT, "", node_type="transform")) is None


def test_an_agent_in_another_file_or_unknown_gives_none() -> None:
    assert schema_text(workflow(AGENT, ""), "other") is None
    assert schema_text(workflow("", "")) is None
