import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isWorkflowPath } from '../src/workflowFiles';

test('workflow files are recognised by name or by a .relavium folder', () => {
  for (const path of [
    '/ws/examples/ticket-triage.relavium.yaml',
    '/ws/a.relavium.yml',
    '/ws/.relavium/flows/nightly.yaml',
    'C:\\ws\\.relavium\\nightly.yml',
  ]) {
    assert.equal(isWorkflowPath(path), true, path);
  }
});

test('other YAML and look-alikes are not workflows', () => {
  for (const path of [
    '/ws/.github/workflows/ci.yaml',
    '/ws/relavium.yaml',
    '/ws/.relavium/notes.md',
    '/ws/x.relavium.yaml.bak',
    '/ws/not.relavium/flow.yaml',
  ]) {
    assert.equal(isWorkflowPath(path), false, path);
  }
});
