// The extension's launch spec starts the real Python server; diagnostics come back over LSP.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { SERVER_RUN, offeredNodes, positionArgument } from '../src/serverCommands';
import { ServerSession } from './serverSession';
import { EXAMPLE_WORKFLOW, REPO_ROOT, scratchFixtures } from './paths';

const FIXTURES = scratchFixtures();

let session: ServerSession;

before(async () => {
  session = await ServerSession.start(REPO_ROOT);
});

after(async () => {
  assert.equal(await session.stop(), 0);
});

test('without settings the extension starts the workspace .venv server with --stdio', () => {
  assert.equal(session.launch.origin, 'workspace .venv');
  assert.equal(session.launch.command, path.join(REPO_ROOT, '.venv', 'bin', 'relavium-lsp'));
  assert.deepEqual(session.launch.args, ['serve', '--stdio']);
  assert.ok(session.initializeResult?.capabilities.textDocumentSync !== undefined);
});

test('the example workflow opens with no diagnostics', async () => {
  const uri = pathToFileURL(EXAMPLE_WORKFLOW).href;
  await session.open(uri, fs.readFileSync(EXAMPLE_WORKFLOW, 'utf8'));
  assert.deepEqual(await session.diagnostics(uri), []);
});

/** The range of the first `needle` in `text`, after `after` when given, in UTF-16 columns. */
function rangeOf(text: string, needle: string, after = '') {
  const offset = text.indexOf(needle, text.indexOf(after));
  assert.ok(offset >= 0, `fixture has no ${needle}`);
  const lines = text.slice(0, offset).split('\n');
  const line = lines.length - 1;
  const character = lines[line]?.length ?? 0;
  return { start: { line, character }, end: { line, character: character + needle.length } };
}

test('the fixture reports each deliberate problem with its rule id and exact range', async () => {
  const fixture = path.join(FIXTURES, 'problems.relavium.yaml');
  const text = fs.readFileSync(fixture, 'utf8');
  const uri = pathToFileURL(fixture).href;
  await session.open(uri, text);
  const diagnostics = await session.diagnostics(uri);
  assert.deepEqual(
    diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.severity, diagnostic.range]),
    [
      ['unordered-output-read', 1, rangeOf(text, 'run.outputs["report"]')],
      ['js-syntax', 1, rangeOf(text, '*', '1 +* 2')],
      ['unknown-node', 1, rangeOf(text, 'nowhere')],
    ],
  );
  const unordered = diagnostics[0];
  assert.equal(unordered?.relatedInformation?.[0]?.location.uri, uri);
});

test('Run with Sample Scope evaluates the node with its sidecar and reports it', async () => {
  const fixture = path.join(FIXTURES, 'problems.relavium.yaml');
  const uri = pathToFileURL(fixture).href;
  const result = await session.request<Record<string, any>>('workspace/executeCommand', {
    command: 'relavium.runWithSampleScope',
    arguments: [{ uri, node: 'classify' }],
  });
  // problems.samples.json gives the ticket text; the transform returns its length
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.deepEqual(result.value, { severity: 'The export button does nothing'.length });
  assert.equal(result.scope.source, 'sidecar');
  assert.equal(result.scope.path, path.join(FIXTURES, 'problems.samples.json'));
  // What VS Code shows: the summary as a notification, the detail in the output channel.
  assert.ok(
    session.shown.some((message) => message.startsWith('classify → ')),
    session.shown.join('\n'),
  );
  assert.ok(
    session.logged.some((message) => message.includes('sidecar')),
    session.logged.join('\n'),
  );
});

test('Run with Sample Scope at the cursor runs the node the cursor is in', async () => {
  const fixture = path.join(FIXTURES, 'problems.relavium.yaml');
  const text = fs.readFileSync(fixture, 'utf8');
  const uri = pathToFileURL(fixture).href;
  await session.open(uri, text);
  const run = (needle: string, after = ''): Promise<Record<string, any>> => {
    const { line, character } = rangeOf(text, needle, after).start;
    return session.request('workspace/executeCommand', {
      command: SERVER_RUN,
      arguments: [positionArgument(uri, line, character)],
    });
  };
  // the columns the extension sends are UTF-16 ones: "🚨" is two of them
  const route = await run('run.outputs["classify"]', '🚨é');
  assert.equal(route.node, 'route', JSON.stringify(route));
  const classify = await run('inputs.ticket.length');
  assert.equal(classify.ok, true, JSON.stringify(classify));
  assert.equal(classify.node, 'classify');
  // outside every node: refused, with the nodes to offer in the quick pick instead
  const refused = await run('from: start');
  assert.equal(refused.ok, false);
  assert.deepEqual(offeredNodes(refused), ['classify', 'route', 'report']);
  assert.ok(
    session.shown.some((message) => message.includes('is in no node')),
    session.shown.join('\n'),
  );
});

test('a duplicate key is reported with its rule id, range and rule link', async () => {
  const uri = pathToFileURL(path.join(REPO_ROOT, 'examples', 'unsaved.relavium.yaml')).href;
  const text = "schema_version: '1.0'\nschema_version: '1.0'\n";
  await session.open(uri, text);
  const diagnostics = await session.diagnostics(uri);
  const duplicate = diagnostics.find((diagnostic) => diagnostic.code === 'duplicate-key');
  assert.ok(duplicate, JSON.stringify(diagnostics));
  assert.equal(duplicate.source, 'relavium-lsp');
  assert.equal(duplicate.range.start.line, 1);
  assert.equal(duplicate.range.start.character, 0);
  assert.match(duplicate.codeDescription?.href ?? '', /docs\/rules\.md#duplicate-key$/);
});

test('the launch keys VS Code sends along are filtered out before the server sees them', () => {
  assert.deepEqual(
    [...session.shown, ...session.logged].filter((message) =>
      /is not a setting|relavium\.(server|python)/.test(message),
    ),
    [],
  );
});

test('a settings change re-diagnoses open documents through a refresh and a new pull', async () => {
  const fixture = path.join(FIXTURES, 'problems.relavium.yaml');
  const uri = pathToFileURL(fixture).href;
  await session.open(uri, fs.readFileSync(fixture, 'utf8'));
  const codes = async (): Promise<unknown[]> =>
    (await session.diagnostics(uri)).map((diagnostic) => diagnostic.code);
  assert.ok((await codes()).includes('unknown-node'));
  await session.changeSettings({ rules: { 'unknown-node': 'off' } });
  assert.ok(!(await codes()).includes('unknown-node'));
  await session.changeSettings({ rules: {} });
  assert.ok((await codes()).includes('unknown-node'));
});
