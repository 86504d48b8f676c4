import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { nodeAtOffset, workflowNodes } from '../src/workflowNodes';
import { EXAMPLE_WORKFLOW } from './paths';

const example = fs.readFileSync(EXAMPLE_WORKFLOW, 'utf8');

test('the example workflow lists its nodes and which carry an expression', () => {
  const nodes = workflowNodes(example);
  assert.deepEqual(
    nodes.map((node) => [node.id, node.type, node.expressionField]),
    [
      ['start', 'input', undefined],
      ['classify', 'agent', undefined],
      ['route', 'condition', 'expression'],
      ['escalate', 'human_gate', undefined],
      ['enrich', 'parallel', undefined],
      ['history', 'transform', 'transform'],
      ['sentiment', 'transform', 'transform'],
      ['combine', 'merge', 'merge_fn'],
      ['draft-reply', 'agent', undefined],
      ['done', 'output', undefined],
    ],
  );
});

test('the node under the cursor is found inside its block and flow mappings', () => {
  const inRouteExpression = example.indexOf('? "urgent"');
  assert.equal(nodeAtOffset(example, inRouteExpression)?.id, 'route');
  const inFlowNode = example.indexOf('parallel_of: [history');
  assert.equal(nodeAtOffset(example, inFlowNode)?.id, 'enrich');
  assert.equal(nodeAtOffset(example, example.indexOf('budget:')), undefined);
});

test('a merge node without merge_fn carries no expression', () => {
  const text = [
    "schema_version: '1.0'",
    'workflow:',
    '  nodes:',
    '    - { id: join, type: merge, merge_strategy: concat }',
    '    - { type: transform, transform: "1" }',
  ].join('\n');
  assert.deepEqual(
    workflowNodes(text).map((node) => [node.id, node.expressionField]),
    [['join', undefined]],
  );
});

test('broken or foreign YAML yields no nodes instead of throwing', () => {
  for (const text of ['', 'workflow: [', 'a: &x 1\nb: *x', '- 1\n- 2', 'workflow:\n  nodes: 3']) {
    assert.deepEqual(workflowNodes(text), [], JSON.stringify(text));
  }
});
