// The server the .vsix carries: a wheelhouse (relavium-lsp's wheel and its dependencies for the
// package's platform, `scripts/package`), installed on first use into a private venv in the
// extension's global storage with the user's Python, offline. Free of `vscode`, so `node --test`
// runs it against real interpreters; the extension adds the progress notification and where the
// Python candidates come from.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** relavium-lsp's `requires-python` (pyproject.toml). */
export const MINIMUM_PYTHON: readonly [number, number] = [3, 11];
/** What the extension ships the wheels in (scripts/package fills it, .vscodeignore keeps it). */
export const WHEELHOUSE_DIR = 'wheels';
/** Written last into a finished environment: without it, a folder is an interrupted install. */
const STAMP = '.relavium-provisioned';
/** A creating `python -m venv` plus an offline `pip install` take ~20 s on a slow machine. */
const STEP_TIMEOUT_MS = 5 * 60 * 1000;
/** Another window installing the same version: wait for it at most this long. */
const LOCK_WAIT_MS = 6 * 60 * 1000;

export interface BundledServer {
  /** The wheelhouse inside the installed extension. */
  wheelhouse: string;
  /** The private environment for this extension version (a new version gets a new one). */
  environment: string;
  /** Its `relavium-lsp` executable. */
  executable: string;
}

/**
 * Where this extension version's server lives, or undefined for a package that carries no
 * wheelhouse (a universal build: the server then comes from the settings, a .venv or PATH).
 */
export function bundledServer(
  extensionDir: string,
  storageDir: string,
  extensionVersion: string,
  platform: NodeJS.Platform,
): BundledServer | undefined {
  const wheelhouse = path.join(extensionDir, WHEELHOUSE_DIR);
  if (!fs.existsSync(wheelhouse)) {
    return undefined;
  }
  const environment = path.join(storageDir, 'server', extensionVersion);
  const executable =
    platform === 'win32'
      ? path.join(environment, 'Scripts', 'relavium-lsp.exe')
      : path.join(environment, 'bin', 'relavium-lsp');
  return { wheelhouse, environment, executable };
}

export function isProvisioned(server: BundledServer): boolean {
  return fs.existsSync(path.join(server.environment, STAMP)) && fs.existsSync(server.executable);
}

export interface PythonFound {
  python: string;
  version: string;
}

/** Why a candidate Python was not used, for the message when none is suitable. */
export interface PythonRejected {
  python: string;
  reason: string;
}

// One line on stdout: the version, then whether venv and ensurepip exist (Debian ships them in
// a separate package, python3-venv, without which `python -m venv` cannot install pip).
const PROBE =
  'import sys, importlib.util as u; ' +
  "print('.'.join(map(str, sys.version_info[:3])), " +
  "all(u.find_spec(m) for m in ('venv', 'ensurepip')))";

/**
 * The first candidate that is a Python ≥ 3.11 able to make a venv, or every candidate's reason.
 */
export async function findPython(
  candidates: readonly string[],
): Promise<{ found?: PythonFound; rejected: PythonRejected[] }> {
  const rejected: PythonRejected[] = [];
  for (const python of candidates) {
    const probed = await run(python, ['-c', PROBE], 30_000);
    if (probed.error !== undefined) {
      rejected.push({ python, reason: probed.error });
      continue;
    }
    const [version = '', canVenv] = probed.stdout.trim().split(' ');
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor < MINIMUM_PYTHON[1])) {
      rejected.push({ python, reason: `it is Python ${version}` });
    } else if (canVenv !== 'True') {
      rejected.push({ python, reason: `its Python ${version} lacks venv (python3-venv)` });
    } else {
      return { found: { python, version }, rejected };
    }
  }
  return { rejected };
}

/** The one message for a machine without a Python the server can run on. */
export function noPythonMessage(rejected: readonly PythonRejected[]): string {
  const tried = rejected.map(({ python, reason }) => `${python}: ${reason}`).join('; ');
  return (
    `Relavium needs Python ${MINIMUM_PYTHON.join('.')} or newer to run its language server, ` +
    `and found none (${tried || 'no candidate'}). Install Python ${MINIMUM_PYTHON.join('.')}+ ` +
    '(and its venv module), select it in the Python extension, or set relavium.server.path.'
  );
}

export class ProvisionError extends Error {}

/**
 * Installs the wheelhouse into `server.environment` with `python`, offline (`--no-index`), unless
 * it is there already; removes the environments of other extension versions afterwards. A
 * second window doing the same waits for the first.
 */
export async function provision(
  server: BundledServer,
  python: string,
  log: (line: string) => void,
): Promise<void> {
  if (isProvisioned(server)) {
    return;
  }
  const lock = `${server.environment}.lock`;
  fs.mkdirSync(path.dirname(server.environment), { recursive: true });
  if (!(await acquire(lock, server))) {
    return; // the other window finished it
  }
  try {
    // An interrupted earlier install is started over: a venv cannot be moved into place
    // (its scripts name their own path), so it is built where it stays, stamped last.
    fs.rmSync(server.environment, { recursive: true, force: true });
    await step(log, python, ['-m', 'venv', server.environment]);
    const venvPython =
      process.platform === 'win32'
        ? path.join(server.environment, 'Scripts', 'python.exe')
        : path.join(server.environment, 'bin', 'python');
    await step(log, venvPython, [
      '-m', 'pip', 'install', '--no-index', '--find-links', server.wheelhouse,
      '--disable-pip-version-check', '--no-cache-dir', '--quiet', 'relavium-lsp',
    ]);
    await step(log, server.executable, ['--version']);
    fs.writeFileSync(path.join(server.environment, STAMP), `${python}\n`);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
  removeOtherVersions(server, log);
}

/** True once this process holds the lock; false when another one provisioned meanwhile. */
async function acquire(lock: string, server: BundledServer): Promise<boolean> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
    }
    if (isProvisioned(server)) {
      return false;
    }
    if (Date.now() > deadline) {
      // The holder died mid-install (a window closed): take over.
      fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function removeOtherVersions(server: BundledServer, log: (line: string) => void): void {
  const parent = path.dirname(server.environment);
  for (const name of fs.readdirSync(parent)) {
    const other = path.join(parent, name);
    if (other !== server.environment && !name.endsWith('.lock')) {
      log(`removing the server environment of another extension version: ${other}`);
      fs.rmSync(other, { recursive: true, force: true });
    }
  }
}

async function step(log: (line: string) => void, command: string, args: string[]): Promise<void> {
  log(`provisioning: ${[command, ...args].join(' ')}`);
  const done = await run(command, args, STEP_TIMEOUT_MS);
  if (done.error !== undefined) {
    const detail = done.stderr.trim().split('\n').slice(-3).join(' ');
    throw new ProvisionError(
      `installing the bundled relavium-lsp failed: ${path.basename(command)} ` +
        `${args.slice(0, 2).join(' ')}: ${done.error}${detail ? ` (${detail})` : ''}`,
    );
  }
}

interface RunResult {
  stdout: string;
  stderr: string;
  /** Why the command failed (not found, exit status), if it did. */
  error?: string;
}

function run(command: string, args: string[], timeout: number): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout, windowsHide: true }, (error, stdout, stderr) => {
      if (error === null) {
        resolve({ stdout, stderr });
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      const reason =
        code === 'ENOENT'
          ? 'not found'
          : error.killed
            ? 'timed out'
            : `exited with code ${String(code)}`;
      resolve({ stdout, stderr, error: reason });
    });
  });
}
