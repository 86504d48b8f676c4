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
  /**
   * False in Restricted Mode: nothing the workspace ships (its `.venv`, a path into its folder)
   * may run, and the server starts in the home directory so `python -m` cannot import a package
   * from the workspace either.
   */
  trusted: boolean;
  /**
   * The executable of the server this package carries (src/provision.ts), installed or not yet;
   * undefined for a package without one.
   */
  bundledServer?: string;
}

export interface LaunchSpec {
  command: string;
  args: string[];
  cwd: string | undefined;
  /** Which rule chose the command, for the output channel. */
  origin: 'relavium.server.path' | 'relavium.python' | 'workspace .venv' | 'bundled' | 'PATH';
}

export const DEFAULT_SERVER_ARGS = ['serve'];

/**
 * The command line for the server, in this order of preference: `relavium.server.path`, then
 * `relavium.python -m server`, then the workspace's own `.venv` (trusted workspaces only), then
 * the server the package carries (its own version, so not a stray older one on PATH), then
 * `relavium-lsp` on PATH. `--stdio` is appended here rather than by the client so the spec is
 * complete as returned. The settings must already be the ones allowed for `env.trusted` (see
 * `readLaunchSettings`).
 */
export function resolveLaunch(settings: LaunchSettings, env: LaunchEnvironment): LaunchSpec {
  const args = [...settings.serverArgs, '--stdio'];
  const cwd = env.trusted ? env.workspaceFolder : env.homeDir;
  if (settings.serverPath.trim() !== '') {
    const command = expand(settings.serverPath, 'relavium.server.path', env);
    return { command, args, cwd, origin: 'relavium.server.path' };
  }
  if (settings.python.trim() !== '') {
    // server/__main__.py is the console script's entry point; the args follow as its argv.
    const command = expand(settings.python, 'relavium.python', env);
    return { command, args: ['-m', 'server', ...args], cwd, origin: 'relavium.python' };
  }
  const venvServer = env.trusted ? workspaceVenvServer(env) : undefined;
  if (venvServer !== undefined) {
    return { command: venvServer, args, cwd, origin: 'workspace .venv' };
  }
  if (env.bundledServer !== undefined) {
    return { command: env.bundledServer, args, cwd, origin: 'bundled' };
  }
  return { command: 'relavium-lsp', args, cwd, origin: 'PATH' };
}

/**
 * In a remote window (Remote-SSH, WSL, a container, code-server) the launch settings are
 * `machine-overridable`: a value in the local User settings does not apply there. Said when the
 * server is nevertheless looked up without them, since that is how a user notices.
 */
export function remoteSettingsNote(
  remoteName: string | undefined,
  spec: LaunchSpec,
): string | undefined {
  if (remoteName === undefined || spec.origin.startsWith('relavium.')) {
    return undefined;
  }
  return (
    `This is a remote window (${remoteName}): relavium.server.path, relavium.server.args and ` +
    'relavium.python in your local User settings do not apply to it. Set them in the Remote ' +
    'settings (Preferences: Open Remote Settings) or in the workspace settings.'
  );
}

/** Said once in the output channel when a workspace is not trusted. */
export const RESTRICTED_MODE_NOTE =
  'Restricted Mode: relavium-lsp is started only from user settings, the server this ' +
  'extension carries or PATH; the workspace ' +
  "folder's .venv and the workspace's launch settings are not used until you trust this folder.";

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
  if (!env.trusted && env.workspaceFolder !== undefined) {
    if (isInside(env.workspaceFolder, expanded, env)) {
      throw new LaunchError(
        `${setting} (${configured}) lies inside the workspace folder, which is not trusted: ` +
          'nothing from it runs in Restricted Mode. Trust the folder, or point the setting ' +
          'at a relavium-lsp installed outside it.',
      );
    }
  }
  return expanded;
}

/** Whether `candidate` (relative ones from the home directory) lies inside `folder`. */
export function isInside(
  folder: string,
  candidate: string,
  env: Pick<LaunchEnvironment, 'homeDir' | 'platform'>,
): boolean {
  const pathApi = env.platform === 'win32' ? path.win32 : path.posix;
  const inside = pathApi.relative(folder, pathApi.resolve(env.homeDir, candidate));
  return !(inside === '..' || inside.startsWith(`..${pathApi.sep}`) || pathApi.isAbsolute(inside));
}

export class LaunchError extends Error {}
