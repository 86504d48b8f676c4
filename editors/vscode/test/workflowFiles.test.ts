import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { fileKind, isWorkflowPath } from '../src/workflowFiles';
import { REPO_ROOT } from './paths';

// The table the server's own selector is tested against (tests/analysis/project/test_files.py).
const table = JSON.parse(
  fs.readFileSync(path.join(REPO_ROOT, 'tests', 'fixtures', 'file-kinds.json'), 'utf8'),
);

test('every path is of the kind the server gives it', () => {
  assert.ok(table.cases.length >= 20);
  for (const [file, kind] of table.cases as [string, string | null][]) {
    assert.equal(fileKind(`/ws/${file}`) ?? null, kind, file);
    assert.equal(fileKind(`C:\\ws\\${file.replaceAll('/', '\\')}`) ?? null, kind, file);
  }
});

test('only a workflow is a workflow for the run commands', () => {
  assert.equal(isWorkflowPath('/ws/examples/ticket-triage.relavium.yaml'), true);
  assert.equal(isWorkflowPath('/ws/.relavium/agents/summarizer.agent.yaml'), false);
  assert.equal(isWorkflowPath('/ws/.github/workflows/ci.yaml'), false);
});
