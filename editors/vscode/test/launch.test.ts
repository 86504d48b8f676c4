import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LaunchError, resolveLaunch, type LaunchEnvironment } from '../src/launch';
import { readLaunchSettings } from '../src/settings';

function environment(files: string[] = [], workspaceFolder = '/ws'): LaunchEnvironment {
  return {
    workspaceFolder,
    homeDir: '/home/me',
    platform: 'linux',
    isFile: (candidate) => files.includes(candidate),
  };
}

const unset = { serverPath: '', serverArgs: ['serve'], python: '' };

test('an explicit server path wins over everything, with ~ expanded and --stdio appended', () => {
  const spec = resolveLaunch(
    { serverPath: '~/bin/relavium-lsp', serverArgs: ['serve'], python: '/usr/bin/python3' },
    environment(['/ws/.venv/bin/relavium-lsp']),
  );
  assert.deepEqual(spec, {
    command: '/home/me/bin/relavium-lsp',
    args: ['serve', '--stdio'],
    cwd: '/ws',
    origin: 'relavium.server.path',
  });
});

test('relavium.python runs the server package as a module', () => {
  const spec = resolveLaunch(
    { ...unset, python: '${workspaceFolder}/.venv/bin/python' },
    environment(),
  );
  assert.equal(spec.command, '/ws/.venv/bin/python');
  assert.deepEqual(spec.args, ['-m', 'server', 'serve', '--stdio']);
  assert.equal(spec.origin, 'relavium.python');
});

test('without settings the workspace .venv is used when it has relavium-lsp', () => {
  const spec = resolveLaunch(unset, environment(['/ws/.venv/bin/relavium-lsp']));
  assert.equal(spec.command, '/ws/.venv/bin/relavium-lsp');
  assert.equal(spec.origin, 'workspace .venv');
});

test('on Windows the .venv lookup uses Scripts\\relavium-lsp.exe', () => {
  const env = { ...environment(['C:\\ws\\.venv\\Scripts\\relavium-lsp.exe'], 'C:\\ws') };
  const spec = resolveLaunch(unset, { ...env, platform: 'win32' });
  assert.equal(spec.command, 'C:\\ws\\.venv\\Scripts\\relavium-lsp.exe');
});

test('otherwise relavium-lsp is taken from PATH, also with no folder open', () => {
  assert.equal(resolveLaunch(unset, environment()).command, 'relavium-lsp');
  const noFolder = { ...environment(), workspaceFolder: undefined };
  const spec = resolveLaunch({ ...unset, serverArgs: ['serve', '--log', 'debug'] }, noFolder);
  assert.deepEqual(spec, {
    command: 'relavium-lsp',
    args: ['serve', '--log', 'debug', '--stdio'],
    cwd: undefined,
    origin: 'PATH',
  });
});

test('${workspaceFolder} without an open folder is a clear error naming the setting', () => {
  const noFolder = { ...environment(), workspaceFolder: undefined };
  assert.throws(
    () => resolveLaunch({ ...unset, serverPath: '${workspaceFolder}/x' }, noFolder),
    (error: unknown) =>
      error instanceof LaunchError && /relavium\.server\.path.*absolute path/.test(error.message),
  );
});

test('settings of the wrong type are named, reported and replaced by defaults', () => {
  const raw: Record<string, unknown> = { 'server.path': 42, 'server.args': 'serve', python: null };
  const { value, problems } = readLaunchSettings((key) => raw[key]);
  assert.deepEqual(value, unset);
  assert.equal(problems.length, 2);
  assert.match(problems[0] ?? '', /^relavium\.server\.path must be a string, got 42/);
  assert.match(problems[1] ?? '', /^relavium\.server\.args must be a list of strings/);
});

test('valid settings pass through unchanged', () => {
  const raw: Record<string, unknown> = { 'server.args': ['serve', '-v'], python: 'py' };
  const { value, problems } = readLaunchSettings((key) => raw[key]);
  assert.deepEqual(problems, []);
  assert.deepEqual(value, { serverPath: '', serverArgs: ['serve', '-v'], python: 'py' });
});
