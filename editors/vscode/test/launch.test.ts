import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  LaunchError,
  remoteSettingsNote,
  resolveLaunch,
  type LaunchEnvironment,
} from '../src/launch';
import { readLaunchSettings } from '../src/settings';

function environment(files: string[] = [], workspaceFolder = '/ws'): LaunchEnvironment {
  return {
    workspaceFolder,
    homeDir: '/home/me',
    platform: 'linux',
    isFile: (candidate) => files.includes(candidate),
    trusted: true,
  };
}

/** `inspect` over user-level values only, as a workspace without its own settings has. */
function userSettings(raw: Record<string, unknown>) {
  return (key: string) => (key in raw ? { globalValue: raw[key] } : {});
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

test('the server the package carries comes after the settings and the .venv, before PATH', () => {
  const bundledServer = '/home/me/.config/Code/User/globalStorage/x/server/0.1.0/bin/relavium-lsp';
  const withBundled = { ...environment(), bundledServer };
  assert.deepEqual(resolveLaunch(unset, withBundled), {
    command: bundledServer,
    args: ['serve', '--stdio'],
    cwd: '/ws',
    origin: 'bundled',
  });
  const venv = { ...environment(['/ws/.venv/bin/relavium-lsp']), bundledServer };
  assert.equal(resolveLaunch(unset, venv).origin, 'workspace .venv');
  const explicit = { ...unset, serverPath: '/opt/relavium-lsp' };
  assert.equal(resolveLaunch(explicit, withBundled).origin, 'relavium.server.path');
  // Restricted Mode: the carried server lives outside the workspace, so it still runs
  const untrustedVenv = { ...venv, trusted: false };
  assert.deepEqual(resolveLaunch(unset, untrustedVenv), {
    command: bundledServer,
    args: ['serve', '--stdio'],
    cwd: '/home/me',
    origin: 'bundled',
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
  const { value, problems } = readLaunchSettings(userSettings(raw), true);
  assert.deepEqual(value, unset);
  assert.equal(problems.length, 2);
  assert.match(problems[0] ?? '', /^relavium\.server\.path must be a string, got 42/);
  assert.match(problems[1] ?? '', /^relavium\.server\.args must be a list of strings/);
});

test('valid settings pass through unchanged', () => {
  const raw: Record<string, unknown> = { 'server.args': ['serve', '-v'], python: 'py' };
  const { value, problems } = readLaunchSettings(userSettings(raw), true);
  assert.deepEqual(problems, []);
  assert.deepEqual(value, { serverPath: '', serverArgs: ['serve', '-v'], python: 'py' });
});

// Workspace trust: in Restricted Mode nothing the workspace ships or configures may run.

const untrusted = (files: string[] = []): LaunchEnvironment => ({
  ...environment(files),
  trusted: false,
});

test('an untrusted .venv is never run: PATH instead, started in the home directory', () => {
  const spec = resolveLaunch(unset, untrusted(['/ws/.venv/bin/relavium-lsp']));
  assert.deepEqual(spec, {
    command: 'relavium-lsp',
    args: ['serve', '--stdio'],
    cwd: '/home/me',
    origin: 'PATH',
  });
  // the same folder once trusted
  const trusted = resolveLaunch(unset, environment(['/ws/.venv/bin/relavium-lsp']));
  assert.equal(trusted.origin, 'workspace .venv');
});

test('untrusted, python -m server does not start in the workspace (sys.path[0] is the cwd)', () => {
  const spec = resolveLaunch({ ...unset, python: '/usr/bin/python3' }, untrusted());
  assert.equal(spec.command, '/usr/bin/python3');
  assert.equal(spec.cwd, '/home/me');
});

test('untrusted: workspace and folder settings are ignored, user settings apply', () => {
  const inspected: Record<string, object> = {
    'server.path': { workspaceValue: '/ws/evil', globalValue: '/opt/relavium-lsp' },
    'server.args': { workspaceFolderValue: ['serve', '--evil'] },
    python: { workspaceValue: '/ws/.venv/bin/python' },
  };
  const read = readLaunchSettings((key) => inspected[key], false);
  assert.deepEqual(read.value, {
    serverPath: '/opt/relavium-lsp',
    serverArgs: ['serve'],
    python: '',
  });
  assert.deepEqual(read.problems, []);
  assert.deepEqual(read.notes, [
    'relavium.server.path from workspace settings ignored: the workspace is not trusted',
    'relavium.server.path from user settings: "/opt/relavium-lsp"',
    'relavium.python from workspace settings ignored: the workspace is not trusted',
    'relavium.server.args from workspace folder settings ignored: the workspace is not trusted',
  ]);
  // trusted, the most specific scope wins and its source is named
  const trusted = readLaunchSettings((key) => inspected[key], true);
  assert.deepEqual(trusted.value, {
    serverPath: '/ws/evil',
    serverArgs: ['serve', '--evil'],
    python: '/ws/.venv/bin/python',
  });
  assert.ok(trusted.notes.includes('relavium.server.path from workspace settings: "/ws/evil"'));
});

test('untrusted: a user-level path into the workspace folder is refused, in every spelling', () => {
  for (const [setting, configured] of [
    ['relavium.python', '${workspaceFolder}/.venv/bin/python'],
    ['relavium.python', '/ws/.venv/bin/python'],
    ['relavium.server.path', '/ws/tools/../bin/relavium-lsp'],
    ['relavium.server.path', '/ws'],
    ['relavium.server.path', '../../ws/bin/relavium-lsp'],
  ] as const) {
    const settings =
      setting === 'relavium.python'
        ? { ...unset, python: configured }
        : { ...unset, serverPath: configured };
    assert.throws(
      () => resolveLaunch(settings, untrusted()),
      (error: unknown) =>
        error instanceof LaunchError &&
        error.message.startsWith(`${setting} (${configured}) lies inside the workspace folder`) &&
        /Trust the folder/.test(error.message),
      configured,
    );
    // a trusted workspace may run its own tools
    assert.doesNotThrow(() => resolveLaunch(settings, environment()), configured);
  }
});

test('untrusted: paths outside the workspace folder run, including look-alike siblings', () => {
  for (const outside of ['/ws-tools/x', '/opt/ws/x', '~/bin/relavium-lsp', 'relavium-lsp']) {
    const settings = { ...unset, serverPath: outside };
    assert.doesNotThrow(() => resolveLaunch(settings, untrusted()), outside);
  }
});

test('untrusted on Windows: the workspace folder is compared case-insensitively', () => {
  const env: LaunchEnvironment = {
    ...untrusted(['C:\\ws\\.venv\\Scripts\\relavium-lsp.exe']),
    workspaceFolder: 'C:\\ws',
    homeDir: 'C:\\Users\\me',
    platform: 'win32',
  };
  assert.equal(resolveLaunch(unset, env).command, 'relavium-lsp');
  const inside = { ...unset, python: 'c:\\WS\\.venv\\Scripts\\python.exe' };
  assert.throws(() => resolveLaunch(inside, env), LaunchError);
  assert.doesNotThrow(() => resolveLaunch({ ...unset, python: 'C:\\Python311\\python.exe' }, env));
});

test('in a remote window, a server found without launch settings says where to set them', () => {
  const fromPath = resolveLaunch(unset, environment());
  assert.match(
    remoteSettingsNote('ssh-remote', fromPath) ?? '',
    /^This is a remote window \(ssh-remote\): .*local User settings do not apply.*Remote settings/,
  );
  const fromVenv = resolveLaunch(unset, environment(['/ws/.venv/bin/relavium-lsp']));
  assert.ok(remoteSettingsNote('wsl', fromVenv)?.includes('(wsl)'));
  // a launch setting is in effect, or the window is local: nothing to say
  const configured = resolveLaunch({ ...unset, python: '/usr/bin/python3' }, environment());
  assert.equal(remoteSettingsNote('ssh-remote', configured), undefined);
  assert.equal(remoteSettingsNote(undefined, fromPath), undefined);
});
