import assert from 'node:assert/strict';
import { test } from 'node:test';
import { offeredNodes, positionArgument } from '../src/serverCommands';

test('a run refused at a position offers the runnable node ids it lists', () => {
  const refused = {
    ok: false,
    error: { code: 'invalid_request', message: '…', runnable: ['route', 'combine'] },
  };
  assert.deepEqual(offeredNodes(refused), ['route', 'combine']);
  const noneRunnable = { ok: false, error: { code: 'invalid_request', runnable: [] } };
  assert.deepEqual(offeredNodes(noneRunnable), []);
});

test('any other answer offers nothing', () => {
  for (const answer of [
    undefined,
    null,
    'text',
    { ok: true, value: 1 },
    { ok: false, error: { code: 'invalid_request', message: 'the workflow does not parse' } },
    { ok: false, error: { code: 'invalid_request', runnable: [1, 2] } },
    { ok: false, error: null },
  ]) {
    assert.equal(offeredNodes(answer), undefined, JSON.stringify(answer));
  }
});

test('the position argument is a plain LSP position', () => {
  assert.deepEqual(positionArgument('file:///w.relavium.yaml', 3, 7), {
    uri: 'file:///w.relavium.yaml',
    position: { line: 3, character: 7 },
  });
});
