// Provisioning the carried server against real interpreters: which Python is chosen and why the
// others were not, and an offline install from a wheelhouse (a stand-in relavium-lsp wheel made
// here, so the test needs no network) that is idempotent and replaces other versions.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  WHEELHOUSE_DIR,
  bundledServer,
  findPython,
  isProvisioned,
  noPythonMessage,
  provision,
} from '../src/provision';

const PYTHON = 'python3';

function scratch(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'relavium-provision-'));
}

function script(folder: string, name: string, body: string): string {
  const file = path.join(folder, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

// A wheel named relavium-lsp whose console script prints a version: what pip needs to install
// `relavium-lsp` offline and make bin/relavium-lsp.
const MAKE_WHEEL = `
import sys, zipfile
dest = sys.argv[1]
info = "relavium_lsp-9.9.9.dist-info"
files = {
    "stand_in.py": "def main():\\n    print('relavium-lsp 9.9.9')\\n",
    info + "/METADATA": "Metadata-Version: 2.1\\nName: relavium-lsp\\nVersion: 9.9.9\\n",
    info + "/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    info + "/entry_points.txt": "[console_scripts]\\nrelavium-lsp = stand_in:main\\n",
}
with zipfile.ZipFile(dest + "/relavium_lsp-9.9.9-py3-none-any.whl", "w") as wheel:
    for name, text in files.items():
        wheel.writestr(name, text)
    wheel.writestr(info + "/RECORD", "".join(name + ",,\\n" for name in files) + info + "/RECORD,,\\n")
`;

test('the first Python >= 3.11 with venv is chosen; the others are named with their reason', async () => {
  const folder = scratch();
  const old = script(folder, 'python-old', 'echo "3.8.10 True"');
  const noVenv = script(folder, 'python-no-venv', 'echo "3.12.1 False"');
  const { found, rejected } = await findPython(['/nonexistent/python', old, noVenv, PYTHON]);
  assert.equal(found?.python, PYTHON);
  assert.match(found?.version ?? '', /^3\.(1[1-9]|[2-9]\d)\.\d+$/);
  assert.deepEqual(rejected, [
    { python: '/nonexistent/python', reason: 'not found' },
    { python: old, reason: 'it is Python 3.8.10' },
    { python: noVenv, reason: 'its Python 3.12.1 lacks venv (python3-venv)' },
  ]);
  const message = noPythonMessage(rejected);
  assert.match(message, /^Relavium needs Python 3\.11 or newer/);
  assert.match(message, /python-old: it is Python 3\.8\.10/);
  assert.match(message, /relavium\.server\.path/);
});

test('a package without a wheelhouse carries no server', () => {
  assert.equal(bundledServer(scratch(), scratch(), '1.0.0', 'linux'), undefined);
});

test('provisioning installs offline once, and replaces other versions', { timeout: 300_000 }, async () => {
  const extension = scratch();
  const wheelhouse = path.join(extension, WHEELHOUSE_DIR);
  fs.mkdirSync(wheelhouse);
  execFileSync(PYTHON, ['-c', MAKE_WHEEL, wheelhouse]);
  const storage = scratch();
  const older = path.join(storage, 'server', '0.9.0');
  fs.mkdirSync(older, { recursive: true });
  const server = bundledServer(extension, storage, '1.0.0', 'linux');
  assert.ok(server !== undefined);
  assert.equal(server.executable, path.join(storage, 'server', '1.0.0', 'bin', 'relavium-lsp'));
  // An install interrupted before its stamp does not count and is started over.
  fs.mkdirSync(path.dirname(server.executable), { recursive: true });
  fs.writeFileSync(server.executable, '');
  assert.equal(isProvisioned(server), false);

  const log: string[] = [];
  await provision(server, PYTHON, (line) => log.push(line));
  assert.ok(isProvisioned(server));
  assert.equal(execFileSync(server.executable, ['--version'], { encoding: 'utf8' }).trim(),
    'relavium-lsp 9.9.9');
  assert.ok(log.some((line) => line.includes('--no-index')), log.join('\n'));
  assert.equal(fs.existsSync(older), false);

  log.length = 0;
  await provision(server, PYTHON, (line) => log.push(line));
  assert.deepEqual(log, []); // already there: nothing run
});
