import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  LAUNCH_SETTING_KEYS,
  NESTED_SERVER_SETTINGS,
  RESTART_SETTINGS,
  SERVER_SETTING_KEYS,
} from '../src/settings';
import { RELAVIUM_GLOBS } from '../src/workflowFiles';

// The checks shared by the source manifest and the one packaged into the .vsix.
export function checkManifest(manifest: any, packagedFiles?: string[]): void {
  for (const glob of RELAVIUM_GLOBS) {
    assert.ok(manifest.activationEvents.includes(`workspaceContains:${glob}`), glob);
  }
  assert.ok(manifest.activationEvents.includes('onLanguage:yaml'));

  assert.deepEqual(
    manifest.contributes.commands.map((command: any) => [command.command, command.title]),
    [
      ['relaviumLsp.runWithSampleScope', 'Run with Sample Scope'],
      ['relaviumLsp.createSampleScope', 'Create Sample Scope'],
      ['relaviumLsp.dryRunWorkflow', 'Dry-run Workflow'],
      ['relavium.showWorkflowGraph', 'Show Workflow Graph'],
      ['relaviumLsp.restartServer', 'Restart Server'],
      ['relaviumLsp.showOutput', 'Show Output'],
    ],
  );

  // Workspace trust: limited support, and the launch settings are the restricted ones.
  const trust = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(trust?.supported, 'limited');
  assert.deepEqual(trust.restrictedConfigurations, RESTART_SETTINGS);
  assert.match(trust.description, /Restricted Mode/);

  const properties = manifest.contributes.configuration.properties;
  const serverSettings = SERVER_SETTING_KEYS.flatMap(
    (key) => NESTED_SERVER_SETTINGS[key]?.map((name) => `${key}.${name}`) ?? [key],
  );
  const expectedSettings = [...LAUNCH_SETTING_KEYS, ...serverSettings].map(
    (key) => `relavium.${key}`,
  );
  assert.deepEqual(Object.keys(properties).sort(), expectedSettings.sort());
  assert.deepEqual(properties['relavium.server.args'].default, ['serve']);
  assert.deepEqual(properties['relavium.rules'].additionalProperties.enum, [
    'error',
    'warning',
    'information',
    'hint',
    'off',
  ]);

  const yaml = manifest.contributes.languages.find((language: any) => language.id === 'yaml');
  assert.deepEqual(yaml.filenamePatterns, [
    '*.relavium.yaml',
    '*.relavium.yml',
    '*.agent.yaml',
    '*.agent.yml',
    '**/.relavium/**/*.yaml',
    '**/.relavium/**/*.yml',
  ]);
  const [grammar] = manifest.contributes.grammars;
  assert.deepEqual(grammar.injectTo, ['source.yaml']);
  assert.equal(grammar.embeddedLanguages['meta.embedded.expression.relavium'], 'javascript');
  // `vsce package` alone builds the bundle it ships
  assert.match(manifest.scripts['vscode:prepublish'], /^npm run build\b/);
  assert.equal(manifest.capabilities.virtualWorkspaces.supported, false);
  assert.equal(manifest.icon, 'images/icon.png');
  if (packagedFiles !== undefined) {
    for (const shipped of [manifest.main, grammar.path, manifest.icon]) {
      assert.ok(packagedFiles.includes(path.posix.join('extension', shipped)), shipped);
    }
  }
}
