import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MESSAGE_LIMIT,
  RefreshQueue,
  VALUE_PREVIEW_LIMIT,
  declarationOf,
  graphOrProblem,
  graphPageHtml,
  makeNonce,
  nodeAt,
  statusesFromDryRun,
  type GraphJson,
} from '../src/graphViewModel';

function span(line: number, from: number, toLine: number, to: number) {
  return { start: { line, character: from }, end: { line: toLine, character: to } };
}

// Two block entries (lines 3-5 and 6-8) and two flow entries on line 9, as the graph JSON gives
// them: `range` the whole entry, `idRange` the id's value.
const GRAPH: GraphJson = {
  version: 1,
  nodes: [
    { id: 'classify', range: span(3, 4, 5, 30), idRange: span(3, 10, 3, 18) },
    { id: 'route', range: span(6, 4, 8, 20), idRange: span(6, 10, 6, 15) },
    { id: 'a', range: span(9, 6, 9, 20), idRange: span(9, 14, 9, 15) },
    { id: 'b', range: span(9, 20, 9, 40), idRange: span(9, 28, 9, 29) },
  ],
};

test('the node under the cursor is the one whose declaration holds it', () => {
  assert.equal(nodeAt(GRAPH, { line: 3, character: 4 }), 'classify');
  assert.equal(nodeAt(GRAPH, { line: 4, character: 0 }), 'classify');
  assert.equal(nodeAt(GRAPH, { line: 5, character: 30 }), 'classify');
  assert.equal(nodeAt(GRAPH, { line: 7, character: 12 }), 'route');
  assert.equal(nodeAt(GRAPH, { line: 9, character: 10 }), 'a');
  // where one flow entry ends as the next begins, the next is the one being written
  assert.equal(nodeAt(GRAPH, { line: 9, character: 20 }), 'b');
  assert.equal(nodeAt(GRAPH, { line: 3, character: 3 }), undefined);
  assert.equal(nodeAt(GRAPH, { line: 0, character: 0 }), undefined);
  assert.equal(nodeAt(GRAPH, { line: 9, character: 41 }), undefined);
});

test("a click reveals the node's id in its declaration", () => {
  assert.deepEqual(declarationOf(GRAPH, 'route'), span(6, 10, 6, 15));
  assert.equal(declarationOf(GRAPH, 'gone'), undefined);
});

test("the server's answer is a graph, or the reason there is none", () => {
  assert.deepEqual(graphOrProblem(GRAPH), { graph: GRAPH });
  const refused = { ok: false, error: { code: 'invalid_request', message: 'fix the YAML first' } };
  assert.deepEqual(graphOrProblem(refused), { problem: 'fix the YAML first' });
  assert.deepEqual(graphOrProblem({ ok: false }), { problem: 'the server drew no graph' });
  assert.deepEqual(graphOrProblem(null), { problem: 'the server gave no graph' });
  for (const other of [
    { ...GRAPH, version: 2 },
    { version: 1 },
    { version: 1, nodes: [{ id: 'x', range: span(0, 0, 0, 1) }] },
    { version: 1, nodes: [{ id: 'x', range: { start: { line: 0 } }, idRange: span(0, 0, 0, 1) }] },
  ]) {
    const answer = graphOrProblem(other);
    assert.ok('problem' in answer && /update both/.test(answer.problem), JSON.stringify(other));
  }
});

test("a dry run's answer gives each node's status, bounded previews and errors", () => {
  const long = 'x'.repeat(500);
  const statuses = statusesFromDryRun({
    ok: false,
    nodes: [
      { id: 'start', type: 'input', status: 'ran', value: { n: 1 }, ms: 0.01 },
      { id: 'route', type: 'condition', status: 'ran', reason: '1 chose "b"', ms: 3 },
      { id: 'a', type: 'transform', status: 'skipped', reason: 'route chose "b"', ms: 0 },
      { id: 'n', type: 'transform', status: 'ran', value: null, ms: 1 },
      { id: 'big', type: 'transform', status: 'ran', value: long, ms: 1 },
      {
        id: 'b',
        type: 'transform',
        status: 'failed',
        error: { code: 'sandbox_error', reason: 'runtime', message: long },
      },
      { status: 'ran' },
    ],
  });
  assert.ok(statuses !== undefined);
  assert.deepEqual(statuses.start, { state: 'ran', value: '{"n":1}' });
  assert.deepEqual(statuses.route, { state: 'ran', reason: '1 chose "b"' });
  assert.deepEqual(statuses.a, { state: 'skipped', reason: 'route chose "b"' });
  assert.deepEqual(statuses.n, { state: 'ran', value: 'null' });
  assert.equal(statuses.big?.value?.length, VALUE_PREVIEW_LIMIT);
  assert.ok(statuses.big?.value?.endsWith('…'));
  assert.equal(statuses.b?.state, 'failed');
  assert.ok(statuses.b?.error?.startsWith('sandbox_error: xxx'));
  assert.equal(statuses.b?.error?.length, MESSAGE_LIMIT);
  assert.deepEqual(Object.keys(statuses).sort(), ['a', 'b', 'big', 'n', 'route', 'start']);
  // a refused run (no nodes) keeps the statuses there were
  assert.equal(statusesFromDryRun({ ok: false, error: { message: 'no workflow' } }), undefined);
  assert.equal(statusesFromDryRun(undefined), undefined);
});

test('the page allows only its own scripts by nonce and its own stylesheet', () => {
  const html = graphPageHtml({
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'N0nce',
    rendererUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/out/graph/relavium-graph.js',
    pageScriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/out/graph/graphPage.js',
    pageStyleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/out/graph/graphPage.css',
    title: 'Graph <of> "x"',
  });
  const policy = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1];
  assert.equal(
    policy,
    "default-src 'none'; script-src 'nonce-N0nce'; " +
      'style-src https://file+.vscode-resource.vscode-cdn.net; ' +
      'img-src https://file+.vscode-resource.vscode-cdn.net data:',
  );
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
  assert.equal(scripts.length, 2);
  for (const attributes of scripts) {
    assert.match(attributes ?? '', / nonce="N0nce" src="https:\/\/file\+\.vscode-resource/);
  }
  // the renderer first: the page script calls it
  assert.ok(html.indexOf('relavium-graph.js') < html.indexOf('graphPage.js'));
  assert.ok(html.includes('<title>Graph &#60;of&#62; &#34;x&#34;</title>'), html);
  assert.doesNotMatch(html, /style="|<style/);
});

test('each nonce is new and fit for a policy', () => {
  let counter = 0;
  const bytes = (size: number) => new Uint8Array(size).fill(counter++);
  const first = makeNonce(bytes);
  const second = makeNonce(bytes);
  assert.notEqual(first, second);
  assert.match(first, /^[A-Za-z0-9_-]{22}$/);
});

test('refreshes never overlap, and the last request is always served', async () => {
  let running = 0;
  let most = 0;
  let served = 0;
  const release: Array<() => void> = [];
  const queue = new RefreshQueue(async () => {
    running += 1;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => release.push(resolve));
    running -= 1;
    served += 1;
  });
  queue.request();
  queue.request(); // during the first: one more after it
  queue.request(); // coalesced with the one before
  assert.equal(release.length, 1);
  release.shift()?.();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(release.length, 1, 'the coalesced refresh runs after the first');
  release.shift()?.();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(served, 2);
  assert.equal(most, 1);
  queue.request(); // idle again: runs at once
  assert.equal(release.length, 1);
  release.shift()?.();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(served, 3);
});

test('a refresh that fails does not stop the next', async () => {
  let calls = 0;
  const queue = new RefreshQueue(async () => {
    calls += 1;
    throw new Error('server gone');
  });
  queue.request();
  await new Promise((resolve) => setImmediate(resolve));
  queue.request();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calls, 2);
});
