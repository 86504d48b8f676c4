import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import * as yauzl from 'yauzl';
import { checkManifest } from './manifestChecks';
import { PACKAGE_ROOT } from './paths';

// scripts/package (`npm run package`) builds this machine's platform-specific package.
const TARGET = `${process.platform}-${process.arch}`;
const VSIX = path.join(PACKAGE_ROOT, 'out', `relavium-lsp-${TARGET}.vsix`);

/** Every entry of the archive, with the contents of the few we read. */
function readVsix(wanted: string[]): Promise<{ names: string[]; contents: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    yauzl.open(VSIX, { lazyEntries: true }, (openError, zip) => {
      if (openError !== null || zip === undefined) {
        reject(openError ?? new Error('no archive'));
        return;
      }
      const names: string[] = [];
      const contents = new Map<string, string>();
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        if (!wanted.includes(entry.fileName)) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError !== null || stream === undefined) {
            reject(streamError ?? new Error(`cannot read ${entry.fileName}`));
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            contents.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve({ names, contents }));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

test('the .vsix holds only the manifest, bundle, graph view, grammar, icon, docs and wheelhouse', async () => {
  assert.ok(fs.existsSync(VSIX), `${VSIX} is missing: run "npm run package"`);
  const bundle = 'extension/out/extension.js';
  const { names, contents } = await readVsix([
    'extension/package.json',
    bundle,
    'extension.vsixmanifest',
  ]);
  checkManifest(JSON.parse(contents.get('extension/package.json') ?? '{}'), names);
  assert.match(contents.get('extension.vsixmanifest') ?? '', new RegExp(`TargetPlatform="${TARGET}"`));
  // The server's wheel and, for each supported CPython, every dependency the server imports.
  const wheels = names.filter((name) => name.startsWith('extension/wheels/'));
  const project = (wheel: string): string => path.posix.basename(wheel).split('-')[0] ?? '';
  assert.deepEqual(
    [...new Set(wheels.map(project))].sort(),
    ['attrs', 'cattrs', 'lsprotocol', 'orjson', 'pygls', 'pyyaml', 'quickjs_ng', 'relavium_lsp',
     'tree_sitter', 'tree_sitter_javascript', 'typing_extensions'],
  );
  for (const abi of ['cp311', 'cp312', 'cp313', 'cp314']) {
    assert.ok(wheels.some((wheel) => wheel.includes(`pyyaml-`) && wheel.includes(`-${abi}-`)), abi);
  }
  // .vscodeignore keeps sources, tests and node_modules out: everything needed is bundled.
  assert.deepEqual(names.filter((name) => !wheels.includes(name)).sort(), [
    '[Content_Types].xml',
    'extension.vsixmanifest',
    'extension/LICENSE.txt',
    'extension/images/icon.png',
    'extension/out/extension.js',
    'extension/out/graph/THIRD_PARTY_NOTICES.txt',
    'extension/out/graph/graphPage.css',
    'extension/out/graph/graphPage.js',
    'extension/out/graph/relavium-graph.js',
    'extension/package.json',
    'extension/readme.md',
    'extension/syntaxes/relavium-expression.injection.tmLanguage.json',
  ]);
  // Everything but VS Code itself is bundled: the only bare require left is "vscode".
  const required = new Set(
    [...(contents.get(bundle) ?? '').matchAll(/require\("([^".][^"]*)"\)/g)].map((m) => m[1]),
  );
  const external = [...required].filter(
    (name) => name !== undefined && !name.startsWith('node:') && !builtinModules.includes(name),
  );
  assert.deepEqual(external, ['vscode']);
});
