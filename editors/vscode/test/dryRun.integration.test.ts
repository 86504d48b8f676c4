// "Relavium: Dry-run Workflow" end to end against the real server: the command the manifest
// contributes sends the server's relavium.dryRunWorkflow with the extension's own argument, and
// what VS Code then shows comes from the server — values as inlay hints, nodes that would not
// run dimmed, the failure at its token (UTF-16 columns on a line with emoji) — until the next
// edit. (The extension's handler itself needs a VS Code host; everything it sends is here.)
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, InlayHint } from 'vscode-languageserver-protocol';
import { SERVER_DRY_RUN, documentArgument } from '../src/serverCommands';
import { PACKAGE_ROOT, REPO_ROOT, scratchFixtures } from './paths';
import { ServerSession } from './serverSession';

const FIXTURE = path.join(scratchFixtures(), 'problems.relavium.yaml');
const TEXT = fs.readFileSync(FIXTURE, 'utf8');
const URI = pathToFileURL(FIXTURE).href;
const WHOLE = {
  start: { line: 0, character: 0 },
  end: { line: TEXT.split('\n').length, character: 0 },
};

let session: ServerSession;

before(async () => {
  session = await ServerSession.start(REPO_ROOT);
});

after(async () => {
  assert.equal(await session.stop(), 0);
});

/** Where `needle` starts in the fixture, in UTF-16 columns (what VS Code counts). */
function positionOf(needle: string): { line: number; character: number } {
  const offset = TEXT.indexOf(needle);
  assert.ok(offset >= 0, `fixture has no ${needle}`);
  const lines = TEXT.slice(0, offset).split('\n');
  return { line: lines.length - 1, character: lines[lines.length - 1]?.length ?? 0 };
}

/** Right after the node's id where it is declared. */
function afterId(id: string): { line: number; character: number } {
  const at = positionOf(`id: ${id}`);
  return { line: at.line, character: at.character + `id: ${id}`.length };
}

async function hints(): Promise<InlayHint[]> {
  return session.request<InlayHint[]>('textDocument/inlayHint', {
    textDocument: { uri: URI },
    range: WHOLE,
  });
}

async function dryRunDiagnostics(): Promise<Diagnostic[]> {
  return (await session.diagnostics(URI)).filter((diagnostic) => diagnostic.code === 'dry-run');
}

test('the contributed command reaches the server command the server offers', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'));
  const contributed = manifest.contributes.commands.find(
    (command: { title: string }) => command.title === 'Dry-run Workflow',
  );
  assert.equal(`${contributed.category}: ${contributed.title}`, 'Relavium: Dry-run Workflow');
  const source = fs.readFileSync(path.join(PACKAGE_ROOT, 'src', 'extension.ts'), 'utf8');
  const registered = `registerCommand\\('${contributed.command}', dryRunWorkflow\\)`;
  assert.match(source, new RegExp(registered));
  assert.match(source, /serverCommand\(SERVER_DRY_RUN, documentArgument\(/);
  const capabilities = session.initializeResult?.capabilities;
  assert.ok(capabilities?.executeCommandProvider?.commands.includes(SERVER_DRY_RUN));
  assert.ok(capabilities?.inlayHintProvider);
});

test('Dry-run Workflow: values inline, what did not run dimmed, the failure at its token', async () => {
  await session.open(URI, TEXT);
  assert.deepEqual(await hints(), []); // nothing before a run
  const refreshes = session.inlayHintRefreshes;
  const result = await session.request<Record<string, any>>('workspace/executeCommand', {
    command: SERVER_DRY_RUN,
    arguments: [documentArgument(URI)],
  });
  // the answer: every node once, in execution order; the run stopped at route
  assert.equal(result.ok, false);
  assert.deepEqual(
    result.nodes.map((node: { id: string; status: string }) => [node.id, node.status]),
    [
      ['start', 'ran'],
      ['classify', 'ran'],
      ['route', 'failed'],
      ['report', 'skipped'],
      ['done', 'skipped'],
    ],
  );
  // the server asks VS Code to fetch the hints again; each sits right after its node's id
  assert.equal(session.inlayHintRefreshes, refreshes + 1);
  const shown = await hints();
  assert.deepEqual(
    shown.map((hint) => [hint.position, hint.label]),
    [
      [afterId('start'), '= {"ticket": "The export button does nothing"}'],
      [afterId('classify'), '= {"severity": 30}'],
      [afterId('report'), '(skipped)'],
      [afterId('done'), '(skipped)'],
    ],
  );
  // the full value in the tooltip, as JSON
  assert.deepEqual(shown[1]?.tooltip, {
    kind: 'markdown',
    value: '```json\n{"severity": 30}\n```',
  });

  // the failure at its token: `count`, on a line whose emoji counts two UTF-16 units
  const diagnostics = await dryRunDiagnostics();
  const failure = diagnostics.find((diagnostic) => diagnostic.severity === 1);
  const count = positionOf('count\n');
  assert.deepEqual(failure?.range, {
    start: count,
    end: { line: count.line, character: count.character + 'count'.length },
  });
  assert.equal(
    failure?.message,
    "dry run: `route` failed: TypeError: cannot read property 'count' of undefined",
  );
  assert.deepEqual(result.nodes[2].error.detail.range, failure?.range);
  // skipped nodes dimmed: hint severity with the Unnecessary tag, and the reason
  assert.deepEqual(
    diagnostics
      .filter((diagnostic) => diagnostic.severity === 4)
      .map((diagnostic) => [diagnostic.message, diagnostic.tags]),
    [
      ['dry run: `report` skipped: upstream "route" failed', [1]],
      ['dry run: `done` skipped: upstream "report" was skipped', [1]],
    ],
  );
  // the trace goes to the output channel, one line per node
  assert.ok(
    session.logged.some((message) => message.startsWith('dry run failed at route: ')),
    session.logged.join('\n'),
  );
});

test('the results stay until the next edit', async () => {
  await session.change(URI, 2, TEXT.replace('label: Start', 'label: Begin'));
  assert.deepEqual(await hints(), []);
  assert.deepEqual(await dryRunDiagnostics(), []);
  // the workflow's own diagnostics are still there
  assert.ok((await session.diagnostics(URI)).some((diagnostic) => diagnostic.code === 'js-syntax'));
});
