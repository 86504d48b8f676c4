// How the extension starts `relavium-lsp serve`. Pure (the file system and platform are passed
// in) so `node --test` runs the exact spec the extension hands to vscode-languageclient.

import * as path from 'node:path';

export interface LaunchSettings {
  /** `relavium.server.path`: an explicit `relavium-lsp` executable. */
  serverPath: string;
  /** `relavium.server.args`: arguments before `--stdio`. */
  serverArgs: string[];
  /** `relavium.python`: an interpreter with relavium-lsp installed. */
  python: string;
}

export interface LaunchEnvironment {
  /** The first workspace folder, if any: `${workspaceFolder}` and the `.venv` lookup use it. */
  workspaceFolder: string | undefined;
  homeDir: string;
  platform: NodeJS.Platform;
  isFile(candidate: string): boolean;
}

export interface LaunchSpec {
  command: string;
  args: string[];
  cwd: string | undefined;
  /** Which rule chose the command, for the output channel. */
  origin: 'relavium.server.path' | 'relavium.python' | 'workspace .venv' | 'PATH';
}

export const DEFAULT_SERVER_ARGS = ['serve'];

/**
 * The command line for the server, in this order of preference: `relavium.server.path`, then
 * `relavium.python -m server`, then the workspace's own `.venv`, then `relavium-lsp` on PATH.
 * `--stdio` is appended here rather than by the client so the spec is complete as returned.
 */
export function resolveLaunch(settings: LaunchSettings, env: LaunchEnvironment): LaunchSpec {
  const args = [...settings.serverArgs, '--stdio'];
  const cwd = env.workspaceFolder;
  if (settings.serverPath.trim() !== '') {
    const command = expand(settings.serverPath, 'relavium.server.path', env);
    return { command, args, cwd, origin: 'relavium.server.path' };
  }
  if (settings.python.trim() !== '') {
    // server/__main__.py is the console script's entry point; the args follow as its argv.
    const command = expand(settings.python, 'relavium.python', env);
    return { command, args: ['-m', 'server', ...args], cwd, origin: 'relavium.python' };
  }
  const venvServer = workspaceVenvServer(env);
  if (venvServer !== undefined) {
    return { command: venvServer, args, cwd, origin: 'workspace .venv' };
  }
  return { command: 'relavium-lsp', args, cwd, origin: 'PATH' };
}

function workspaceVenvServer(env: LaunchEnvironment): string | undefined {
  if (env.workspaceFolder === undefined) {
    return undefined;
  }
  const candidate =
    env.platform === 'win32'
      ? path.win32.join(env.workspaceFolder, '.venv', 'Scripts', 'relavium-lsp.exe')
      : path.posix.join(env.workspaceFolder, '.venv', 'bin', 'relavium-lsp');
  return env.isFile(candidate) ? candidate : undefined;
}

/** `~` and `${workspaceFolder}` in a configured path, as VS Code users write them. */
function expand(configured: string, setting: string, env: LaunchEnvironment): string {
  let expanded = configured.trim();
  if (expanded === '~' || expanded.startsWith('~/')) {
    expanded = env.homeDir + expanded.slice(1);
  }
  if (expanded.includes('${workspaceFolder}')) {
    if (env.workspaceFolder === undefined) {
      throw new LaunchError(
        `${setting} uses \${workspaceFolder} (${configured}) but no folder is open: ` +
          'open the workspace folder or configure an absolute path.',
      );
    }
    expanded = expanded.split('${workspaceFolder}').join(env.workspaceFolder);
  }
  return expanded;
}

export class LaunchError extends Error {}
