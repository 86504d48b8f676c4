// Starting the server process and explaining why it failed. Free of `vscode`, so `node --test`
// runs it against real processes: the extension hands the child to vscode-languageclient and
// turns a failure into one notification that names the command and the cause.

import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { LaunchSpec } from './launch';

/** Enough of stderr to find the cause; a server that runs for hours logs far more. */
const KEPT_STDERR_LINES = 200;
/** How long a failure report waits for the process to exit and its stderr to drain. */
const EXIT_WAIT_MS = 2000;

export class ServerProcess {
  readonly stderr: string[] = [];
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private readonly stderrClosed: Promise<void>;

  constructor(
    readonly spec: LaunchSpec,
    readonly child: ChildProcess,
    onStderrLine: (line: string) => void,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
    this.stderrClosed = new Promise((resolve) => {
      if (child.stderr === null) {
        resolve();
        return;
      }
      const lines = readline.createInterface({ input: child.stderr, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (this.stderr.length < KEPT_STDERR_LINES) {
          this.stderr.push(line);
        }
        onStderrLine(line);
      });
      lines.once('close', resolve);
    });
  }

  /** Waits (bounded) until the process has exited and all its stderr is read. */
  async settled(): Promise<void> {
    const done = Promise.all([this.exited, this.stderrClosed]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, EXIT_WAIT_MS)));
    await Promise.race([done, timeout]);
    clearTimeout(timer);
  }

  /** Ends a server that is still running after a stop (it normally exits on `exit`). */
  terminateLater(graceMs = EXIT_WAIT_MS): void {
    setTimeout(() => {
      if (this.exit === undefined) {
        this.child.kill();
      }
    }, graceMs).unref();
  }

  /** What went wrong, for a server that exited (or never started). */
  async cause(): Promise<string> {
    await this.settled();
    return failureCause(this.stderr, this.exit);
  }
}

/**
 * Starts the server; resolves once the process runs, rejects with a `LaunchFailure` naming the
 * command when it cannot be started at all (not found, not executable).
 */
export function spawnServer(
  spec: LaunchSpec,
  onStderrLine: (line: string) => void = () => undefined,
): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, stdio: 'pipe' });
    const server = new ServerProcess(spec, child, onStderrLine);
    child.once('spawn', () => resolve(server));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new LaunchFailure(spec, spawnErrorCause(error))),
    );
  });
}

function spawnErrorCause(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'the command was not found';
    case 'EACCES':
      return 'the command is not executable';
    default:
      return error.message;
  }
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const PYTHON_LEVELS: Record<string, LogLevel> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
  CRITICAL: 'error',
};

/**
 * The output-channel level of each stderr line of `relavium-lsp serve`, which logs
 * `LEVEL logger: message` (server/lsp/serve.py), so a warning is not shown as an error. A
 * line without a level continues the one before (a traceback); before any, it is an error (a
 * Python that cannot even start the server).
 */
export class StderrLevels {
  private last: LogLevel = 'error';

  levelOf(line: string): LogLevel {
    const level = PYTHON_LEVELS[/^([A-Z]+) \S+: /.exec(line)?.[1] ?? ''];
    if (level !== undefined) {
      this.last = level;
    }
    return this.last;
  }
}

const TRACEBACK = 'Traceback (most recent call last):';
const MAX_CAUSE_CHARS = 400;

/**
 * The first meaningful stderr lines: a Python traceback's closing exception line (`No module
 * named 'pygls'`), else the first two non-blank lines; else what the exit status says.
 */
export function failureCause(
  stderr: readonly string[],
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
): string {
  const lines = stderr.map((line) => line.trim()).filter((line) => line !== '');
  const traceback = stderr.findIndex((line) => line.trim() === TRACEBACK);
  let cause: string | undefined;
  if (traceback >= 0) {
    // The exception line is the first unindented line after the traceback's frames.
    cause = stderr.slice(traceback + 1).find((line) => line.trim() !== '' && !/^\s/.test(line));
  }
  cause ??= lines.slice(0, 2).join(' ');
  if (cause !== '') {
    return cause.length > MAX_CAUSE_CHARS ? `${cause.slice(0, MAX_CAUSE_CHARS)}…` : cause;
  }
  if (exit?.signal) {
    return `it was killed by ${exit.signal}, with no error output`;
  }
  if (exit?.code !== undefined && exit.code !== null) {
    return `it exited with code ${exit.code}, with no error output`;
  }
  return 'it closed the connection, with no error output';
}

export function commandLine(spec: LaunchSpec): string {
  return [spec.command, ...spec.args].map(quoteIfNeeded).join(' ');
}

function quoteIfNeeded(word: string): string {
  return /^[\w./:=@+-]+$/.test(word) ? word : JSON.stringify(word);
}

/** The one notification for a server that could not start or keeps dying. */
export function failureMessage(spec: LaunchSpec, cause: string, crashed = false): string {
  const what = crashed ? 'stopped working' : 'did not start';
  // The carried server is installed by the extension: installing one by hand is no answer.
  const remedy =
    spec.origin === 'bundled'
      ? `Delete ${path.dirname(path.dirname(spec.command))} to have it installed again, or ` +
        'set relavium.server.path or relavium.python.'
      : 'Install relavium-lsp (pipx install relavium-lsp) or set relavium.server.path or ' +
        'relavium.python.';
  return `relavium-lsp ${what}: ${commandLine(spec)} (from ${spec.origin}): ${cause}. ${remedy}`;
}

export class LaunchFailure extends Error {
  constructor(
    readonly spec: LaunchSpec,
    readonly reason: string,
  ) {
    super(failureMessage(spec, reason));
  }
}

/** vscode-languageclient's own rule: at most this many restarts within the window. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

/**
 * Whether to restart a server whose connection closed. A server that never finished starting is
 * not restarted (it would fail the same way, in a loop); one that ran is restarted unless it
 * crashed more than `MAX_RESTARTS` times in the window.
 */
export class RestartPolicy {
  private readonly crashes: number[] = [];

  shouldRestart(now: number, wasRunning: boolean): boolean {
    if (!wasRunning) {
      return false;
    }
    this.crashes.push(now);
    while (this.crashes.length > 0 && now - (this.crashes[0] ?? now) > RESTART_WINDOW_MS) {
      this.crashes.shift();
    }
    return this.crashes.length <= MAX_RESTARTS;
  }
}
