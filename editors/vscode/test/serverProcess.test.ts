// Launch failures against real processes: what the one notification says about them.
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { test } from 'node:test';
import type { LaunchSpec } from '../src/launch';
import {
  LaunchFailure,
  RestartPolicy,
  StderrLevels,
  failureCause,
  failureMessage,
  spawnServer,
} from '../src/serverProcess';

function spec(command: string, args: string[], origin: LaunchSpec['origin']): LaunchSpec {
  return { command, args, cwd: os.tmpdir(), origin };
}

async function causeOf(launch: LaunchSpec): Promise<string> {
  const server = await spawnServer(launch);
  return server.cause();
}

test('a missing command is a LaunchFailure naming it, its origin and the cause', async () => {
  const launch = spec('/nonexistent/relavium-lsp', ['serve', '--stdio'], 'relavium.server.path');
  await assert.rejects(spawnServer(launch), (error: unknown) => {
    assert.ok(error instanceof LaunchFailure);
    assert.equal(
      error.message,
      'relavium-lsp did not start: /nonexistent/relavium-lsp serve --stdio ' +
        '(from relavium.server.path): the command was not found. Install relavium-lsp ' +
        '(pipx install relavium-lsp) or set relavium.server.path or relavium.python.',
    );
    return true;
  });
});

// -S: no site-packages, so the package is missing even when the test runs inside a venv that has
// it installed (./scripts/test puts .venv/bin first on PATH); otherwise the server would start.
test('a Python without the package: the cause is its one-line error', { timeout: 30_000 }, async () => {
  const launch = spec('python3', ['-I', '-S', '-m', 'server', 'serve', '--stdio'], 'relavium.python');
  const cause = await causeOf(launch);
  assert.match(cause, /^\S*python3[\d.]*: No module named server$/);
  assert.match(
    failureMessage(launch, cause),
    new RegExp(
      '^relavium-lsp did not start: python3 -I -S -m server serve --stdio ' +
        '\\(from relavium\\.python\\): .*No module named server\\. ',
    ),
  );
});

test('a traceback: the cause is the exception line, not the frames', { timeout: 30_000 }, async () => {
  const code = 'import json\nimport relavium_missing_dependency';
  const cause = await causeOf(spec('python3', ['-c', code], 'relavium.python'));
  assert.equal(cause, "ModuleNotFoundError: No module named 'relavium_missing_dependency'");
});

test('a process that exits silently: the cause is its exit status', { timeout: 30_000 }, async () => {
  assert.equal(
    await causeOf(spec('/bin/false', [], 'relavium.server.path')),
    'it exited with code 1, with no error output',
  );
  const killed = await causeOf(spec('sh', ['-c', 'kill -9 $$'], 'relavium.server.path'));
  assert.equal(killed, 'it was killed by SIGKILL, with no error output');
});

test('stderr without a traceback: its first two meaningful lines, bounded', () => {
  assert.equal(
    failureCause(['', '  error: bad flag --x  ', 'usage: relavium-lsp serve', 'more'], undefined),
    'error: bad flag --x usage: relavium-lsp serve',
  );
  const long = failureCause(['x'.repeat(1000)], { code: 2, signal: null });
  assert.equal(long.length, 401);
  assert.ok(long.endsWith('…'));
  assert.equal(failureCause([], undefined), 'it closed the connection, with no error output');
});

test('a command line with spaces is quoted so it can be copied', () => {
  const launch = spec('/opt/my tools/relavium-lsp', ['serve', '--stdio'], 'relavium.server.path');
  assert.ok(
    failureMessage(launch, 'x', true).startsWith(
      'relavium-lsp stopped working: "/opt/my tools/relavium-lsp" serve --stdio',
    ),
  );
});

test('a carried server that fails says how to have it installed again', () => {
  const environment = '/home/me/.config/Code/User/globalStorage/relavium.relavium-lsp/server/0.1.0';
  const launch = spec(`${environment}/bin/relavium-lsp`, ['serve', '--stdio'], 'bundled');
  const message = failureMessage(launch, 'it exited with code 1, with no error output');
  assert.ok(message.endsWith(
    `Delete ${environment} to have it installed again, or set relavium.server.path or ` +
      'relavium.python.',
  ), message);
  assert.ok(!message.includes('pipx'));
});

test('a server that never finished starting is never restarted', () => {
  const policy = new RestartPolicy();
  for (let attempt = 0; attempt < 10; attempt++) {
    assert.equal(policy.shouldRestart(attempt, false), false);
  }
});

test('a server that ran is restarted 4 times within 3 minutes, then left stopped', () => {
  const policy = new RestartPolicy();
  const minute = 60_000;
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((at) => policy.shouldRestart(at * 1000, true)),
    [true, true, true, true, false],
  );
  // crashes spread out further than the window are each restarted
  const spread = new RestartPolicy();
  assert.ok([0, 4, 8, 12, 16, 20].every((at) => spread.shouldRestart(at * minute, true)));
});

test("each stderr line is logged at the server's own level, a traceback at its record's", () => {
  const levels = new StderrLevels();
  const lines = [
    '/usr/bin/python3: No module named server',
    'WARNING relavium-lsp: didChange for file:///a.yaml had an out-of-range edit',
    'INFO relavium-lsp: hello',
    'DEBUG pygls.server: message',
    'ERROR relavium-lsp: analysis of file:///a.yaml failed',
    'Traceback (most recent call last):',
    '  File "x.py", line 1, in <module>',
    'CRITICAL x: y',
    'WARNING:not the format',
  ];
  assert.deepEqual(
    lines.map((line) => levels.levelOf(line)),
    ['error', 'warn', 'info', 'debug', 'error', 'error', 'error', 'error', 'error'],
  );
});
