import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverSection } from '../src/settings';

test('only the keys the server parses are forwarded to it', () => {
  const section = {
    server: { path: '/x', args: ['serve'] },
    python: '/usr/bin/python3',
    debounceMs: 50,
    rules: { 'unreachable-node': 'off' },
    sampleScope: 'samples/triage.json',
  };
  assert.deepEqual(serverSection(section), {
    debounceMs: 50,
    rules: { 'unreachable-node': 'off' },
    sampleScope: 'samples/triage.json',
  });
});

test('a missing or malformed section forwards nothing', () => {
  assert.deepEqual(serverSection(undefined), {});
  assert.deepEqual(serverSection(['debounceMs']), {});
  assert.deepEqual(serverSection({ debounceMs: null }), {});
});
