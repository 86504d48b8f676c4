// The `relavium.*` settings: which ones start the server (read here) and which ones the server
// reads itself (passed through). Free of `vscode`: callers hand in a getter over the section.

import { DEFAULT_SERVER_ARGS, type LaunchSettings } from './launch';

/** The keys of the `relavium` section that the server parses (server/lsp/settings.py). */
export const SERVER_SETTING_KEYS = ['debounceMs', 'rules', 'sampleScope', 'diagnostics'] as const;

/** The server's keys that are objects of settings: each contributed as `relavium.<key>.<name>`. */
export const NESTED_SERVER_SETTINGS: Partial<Record<(typeof SERVER_SETTING_KEYS)[number], string[]>> = {
  diagnostics: ['scope'],
};

/** The keys only the extension reads, to start the server; they never reach the server. */
export const LAUNCH_SETTING_KEYS = ['server.path', 'server.args', 'python'] as const;

/** Settings whose change needs a server restart rather than a configuration push. */
export const RESTART_SETTINGS = LAUNCH_SETTING_KEYS.map((key) => `relavium.${key}`);

export interface ReadResult<T> {
  value: T;
  /** One message per invalid setting, naming it and what was used instead. */
  problems: string[];
}

/** What `WorkspaceConfiguration.inspect(key)` reports, for the scopes a setting can come from. */
export interface InspectedSetting {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type SettingSource = 'workspace folder settings' | 'workspace settings' | 'user settings';

const SOURCES: [keyof InspectedSetting, SettingSource][] = [
  ['workspaceFolderValue', 'workspace folder settings'],
  ['workspaceValue', 'workspace settings'],
  ['globalValue', 'user settings'],
];

export interface LaunchSettingsRead extends ReadResult<LaunchSettings> {
  /** For the output channel: where each launch setting that is set came from, or why not used. */
  notes: string[];
}

/**
 * The launch settings as VS Code applies them (workspace folder over workspace over user), except
 * that an untrusted workspace's own values are skipped: in Restricted Mode only user settings
 * may choose what runs. (The manifest also lists these keys as `restrictedConfigurations`; this
 * does not rely on it.) `inspect(key)` inspects `relavium.<key>`.
 */
export function readLaunchSettings(
  inspect: (key: string) => InspectedSetting | undefined,
  trusted: boolean,
): LaunchSettingsRead {
  const problems: string[] = [];
  const notes: string[] = [];
  const get = (key: string): unknown => {
    const inspected = inspect(key) ?? {};
    for (const [scope, source] of SOURCES) {
      const value = inspected[scope];
      if (value === undefined) {
        continue;
      }
      if (!trusted && source !== 'user settings') {
        notes.push(`relavium.${key} from ${source} ignored: the workspace is not trusted`);
        continue;
      }
      notes.push(`relavium.${key} from ${source}: ${JSON.stringify(value)}`);
      return value;
    }
    return undefined;
  };
  const text = (key: string): string => {
    const raw = get(key);
    if (raw === undefined || raw === null) {
      return '';
    }
    if (typeof raw !== 'string') {
      problems.push(`relavium.${key} must be a string, got ${JSON.stringify(raw)}; ignored.`);
      return '';
    }
    return raw;
  };
  const serverPath = text('server.path');
  const python = text('python');
  const rawArgs = get('server.args');
  let serverArgs = [...DEFAULT_SERVER_ARGS];
  if (rawArgs !== undefined && rawArgs !== null) {
    if (Array.isArray(rawArgs) && rawArgs.every((arg) => typeof arg === 'string')) {
      serverArgs = [...rawArgs];
    } else {
      problems.push(
        `relavium.server.args must be a list of strings, got ${JSON.stringify(rawArgs)}; ` +
          `using ${JSON.stringify(DEFAULT_SERVER_ARGS)}.`,
      );
    }
  }
  return { value: { serverPath, serverArgs, python }, problems, notes };
}

/**
 * The part of the `relavium` section the server reads. VS Code answers a configuration request
 * with the whole section, launch keys included; the server would report those as unknown.
 */
export function serverSection(section: unknown): Record<string, unknown> {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    return {};
  }
  const source = section as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const key of SERVER_SETTING_KEYS) {
    if (source[key] !== undefined && source[key] !== null) {
      picked[key] = source[key];
    }
  }
  return picked;
}
