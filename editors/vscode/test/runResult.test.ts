import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeRunResult } from '../src/runResult';

test('a successful run shows the value and the scope it used', () => {
  const report = describeRunResult('route', {
    ok: true,
    value: 'urgent',
    scope: { source: 'sidecar', path: 'ticket-triage.samples.json' },
  });
  assert.equal(report.ok, true);
  assert.equal(report.summary, 'route → "urgent"');
  assert.equal(
    report.detail,
    'run route with scope sidecar ticket-triage.samples.json\nvalue: "urgent"',
  );
});

test('a long value is shortened in the notification but complete in the output', () => {
  const value = { text: 'x'.repeat(500) };
  const report = describeRunResult('history', { ok: true, value });
  assert.equal(report.summary.length, 'history → '.length + 120);
  assert.ok(report.summary.endsWith('…'));
  assert.ok(report.detail.includes('x'.repeat(500)));
});

test('a top-level NaN, Infinity or -0 is shown as the number, not as null', () => {
  for (const number of ['NaN', 'Infinity', '-Infinity', '-0']) {
    const report = describeRunResult('score', { ok: true, value: null, number });
    assert.equal(report.summary, `score → ${number}`);
    assert.equal(report.detail, `run score\nvalue: ${number}`);
  }
});

test('a sandbox error names its reason and retryability, never its private detail', () => {
  const report = describeRunResult('route', {
    ok: false,
    error: {
      code: 'sandbox_error',
      reason: 'timeout',
      retryable: true,
      message: 'sandbox_error: the expression ran out of time',
      detail: 'secret stack',
    },
    scope: 'synthesized',
  });
  assert.equal(report.ok, false);
  assert.equal(report.summary, 'route failed: timeout — sandbox_error: the expression ran out of time');
  assert.match(report.detail, /^run route with synthesized\nerror: sandbox_error timeout \(retryable\)/);
  assert.ok(!report.detail.includes('secret stack'));
});

test('an answer that is not a result object is reported, not shown as success', () => {
  for (const answer of [null, undefined, 'ok', [1]]) {
    const report = describeRunResult('route', answer);
    assert.equal(report.ok, false);
    assert.match(report.summary, /^Run of "route" returned no result/);
  }
});
