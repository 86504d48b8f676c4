// The `relavium.*` settings: which ones start the server (read here) and which ones the server
// reads itself (passed through). Free of `vscode`: callers hand in a getter over the section.

import { DEFAULT_SERVER_ARGS, type LaunchSettings } from './launch';

/** The keys of the `relavium` section that the server parses (server/settings.py). */
export const SERVER_SETTING_KEYS = ['debounceMs', 'rules', 'sampleScope'] as const;

/** The keys only the extension reads, to start the server; they never reach the server. */
export const LAUNCH_SETTING_KEYS = ['server.path', 'server.args', 'python'] as const;

/** Settings whose change needs a server restart rather than a configuration push. */
export const RESTART_SETTINGS = LAUNCH_SETTING_KEYS.map((key) => `relavium.${key}`);

export interface ReadResult<T> {
  value: T;
  /** One message per invalid setting, naming it and what was used instead. */
  problems: string[];
}

/** `get(key)` returns the raw value of `relavium.<key>`, or undefined when unset. */
export function readLaunchSettings(get: (key: string) => unknown): ReadResult<LaunchSettings> {
  const problems: string[] = [];
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
  return { value: { serverPath, serverArgs, python }, problems };
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
