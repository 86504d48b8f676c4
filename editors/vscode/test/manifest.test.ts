import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { SERVER_SETTING_KEYS } from '../src/settings';
import { checkManifest } from './manifestChecks';
import { PACKAGE_ROOT, REPO_ROOT } from './paths';

const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'));

test('the manifest contributes the activation events, commands and settings', () => {
  checkManifest(manifest);
  assert.ok(fs.existsSync(path.join(PACKAGE_ROOT, manifest.contributes.grammars[0].path)));
});

test('every contributed command is registered by the extension', () => {
  const source = fs.readFileSync(path.join(PACKAGE_ROOT, 'src', 'extension.ts'), 'utf8');
  for (const { command } of manifest.contributes.commands) {
    assert.ok(source.includes(`registerCommand('${command}'`), command);
  }
});

test('the server-side settings match what server/lsp/settings.py parses', () => {
  const serverSettings = fs.readFileSync(path.join(REPO_ROOT, 'server', 'lsp', 'settings.py'), 'utf8');
  const known = /known = \{([^}]*)\}/.exec(serverSettings)?.[1] ?? '';
  const parsed = [...known.matchAll(/"([^"]+)"/g)].map((match) => match[1]);
  assert.deepEqual(parsed.sort(), [...SERVER_SETTING_KEYS].sort());
  // Unset is the server's own default (adaptive, at most DEFAULT_DEBOUNCE_MS): the extension
  // must not send a number in its place, which the server would wait exactly.
  assert.match(serverSettings, /debounce_ms: int \| None = None/);
  const debounce = manifest.contributes.configuration.properties['relavium.debounceMs'];
  assert.equal(debounce.default, null);
  const most = /DEFAULT_DEBOUNCE_MS = (\d+)/.exec(serverSettings)?.[1];
  assert.match(debounce.markdownDescription, new RegExp(`at most ${most} ms`));
});

test('relavium.rules offers exactly the rule ids documented in docs/rules.md', () => {
  const documented = new Set(
    [
      ...fs
        .readFileSync(path.join(REPO_ROOT, 'docs', 'rules.md'), 'utf8')
        .matchAll(/^### ([a-z-]+)$/gm),
    ].map((match) => match[1]),
  );
  const rules = manifest.contributes.configuration.properties['relavium.rules'];
  const offered = Object.keys(rules.properties);
  assert.ok(offered.length >= 20, `only ${offered.length} rule ids offered`);
  assert.deepEqual(
    offered.filter((rule) => !documented.has(rule)),
    [],
  );
  // a new rule is offered for completion too, not only accepted as an unknown key
  assert.deepEqual(
    [...documented].filter((rule) => rule !== undefined && !offered.includes(rule)),
    [],
  );
  for (const rule of offered) {
    assert.deepEqual(rules.properties[rule].enum, rules.additionalProperties.enum, rule);
  }
});

test('vscode-languageclient supports the VS Code range the extension declares', () => {
  const client = JSON.parse(
    fs.readFileSync(
      path.join(PACKAGE_ROOT, 'node_modules', 'vscode-languageclient', 'package.json'),
      'utf8',
    ),
  );
  assert.equal(client.engines.vscode, manifest.engines.vscode);
  assert.equal(
    JSON.parse(
      fs.readFileSync(
        path.join(PACKAGE_ROOT, 'node_modules', '@types', 'vscode', 'package.json'),
        'utf8',
      ),
    ).version,
    manifest.engines.vscode.replace('^', ''),
  );
});
