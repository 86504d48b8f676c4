// The workflow graph view's decisions, free of `vscode` so that `node --test` checks them: the
// webview's page (its content security policy), which node the cursor is in, the statuses a dry
// run gives the renderer, and refreshing at most one request at a time.

/** The server command that answers the graph JSON (docs/server.md, `relavium.workflowGraph`). */
export const SERVER_WORKFLOW_GRAPH = 'relavium.workflowGraph';
/** The files the webview loads, all from the extension's `out/graph/` (nothing remote). */
export const GRAPH_ASSETS_FOLDER = ['out', 'graph'];
export const RENDERER_FILE = 'relavium-graph.js';
export const PAGE_SCRIPT_FILE = 'graphPage.js';
export const PAGE_STYLE_FILE = 'graphPage.css';
/** As `relavium-lsp graph` and `relavium.workflowGraph` bound what a node's tooltip shows. */
export const VALUE_PREVIEW_LIMIT = 120;
export const MESSAGE_LIMIT = 300;

export interface Point {
  line: number;
  character: number;
}

export interface Span {
  start: Point;
  end: Point;
}

/** The parts of a graph JSON node (docs/cli.md, "The graph JSON") the extension reads. */
export interface GraphNode {
  id: string;
  range: Span;
  idRange: Span;
}

export interface GraphJson {
  version: number;
  nodes: GraphNode[];
}

/** A node's dry-run status as the renderer's `setStatuses` takes it (editors/graph/README.md). */
export interface NodeStatus {
  state: string;
  reason?: string;
  value?: string;
  error?: string;
}

/** Messages from the extension to the page (media/graphPage.js handles each `type`). */
export type ToPage =
  | { type: 'graph'; graph: unknown }
  | { type: 'statuses'; statuses: Record<string, NodeStatus> }
  | { type: 'highlight'; id: string | null }
  | { type: 'problem'; message: string | null };

/** Messages from the page: it is ready for a graph, or a node was clicked. */
export type FromPage = { type: 'ready' } | { type: 'reveal'; id: string };

function isPoint(value: unknown): value is Point {
  const point = value as Point;
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger(point.line) &&
    Number.isInteger(point.character)
  );
}

function isSpan(value: unknown): value is Span {
  return typeof value === 'object' && value !== null && isPoint((value as Span).start) &&
    isPoint((value as Span).end);
}

/**
 * The answer of `relavium.workflowGraph` as a graph, or the reason it is none: a refusal
 * (`{ok: false, error: {message}}`, e.g. a file whose YAML does not parse), or an answer of
 * another shape (a server older or newer than this extension).
 */
export function graphOrProblem(answer: unknown): { graph: GraphJson } | { problem: string } {
  if (typeof answer !== 'object' || answer === null) {
    return { problem: 'the server gave no graph' };
  }
  const refused = answer as { ok?: unknown; error?: { message?: unknown } };
  if (refused.ok === false) {
    const message = refused.error?.message;
    return { problem: typeof message === 'string' ? message : 'the server drew no graph' };
  }
  const graph = answer as GraphJson;
  const nodes = Array.isArray(graph.nodes) ? graph.nodes : undefined;
  const wellFormed = nodes?.every(
    (node) => typeof node?.id === 'string' && isSpan(node.range) && isSpan(node.idRange),
  );
  if (graph.version !== 1 || !wellFormed) {
    return { problem: 'the server answered a graph this extension does not read: update both' };
  }
  return { graph };
}

function before(a: Point, b: Point): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** The id of the node whose declaration holds the position (its end included), if any. */
export function nodeAt(graph: GraphJson, position: Point): string | undefined {
  let found: GraphNode | undefined;
  for (const node of graph.nodes) {
    const holds = before(node.range.start, position) && before(position, node.range.end);
    // where one entry ends as the next begins, the later one is the one being written
    if (holds && (found === undefined || before(found.range.start, node.range.start))) {
      found = node;
    }
  }
  return found?.id;
}

/** Where a click on node `id` goes: its id in the declaration. */
export function declarationOf(graph: GraphJson, id: string): Span | undefined {
  return graph.nodes.find((node) => node.id === id)?.idRange;
}

function clipped(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/**
 * The renderer's statuses from a `relavium.dryRunWorkflow` answer (`{ok, nodes: [{id, status,
 * value?, reason?, error?}]}`, docs/server.md "Dry runs"); undefined for any other answer (a
 * refusal). Values are previews, bounded as the graph JSON's are.
 */
export function statusesFromDryRun(answer: unknown): Record<string, NodeStatus> | undefined {
  const nodes = (answer as { nodes?: unknown } | null)?.nodes;
  if (!Array.isArray(nodes)) {
    return undefined;
  }
  const statuses: Record<string, NodeStatus> = {};
  for (const node of nodes) {
    if (typeof node?.id !== 'string' || typeof node.status !== 'string') {
      continue;
    }
    const status: NodeStatus = { state: node.status };
    if (typeof node.reason === 'string') {
      status.reason = node.reason;
    }
    if ('value' in node) {
      status.value = clipped(JSON.stringify(node.value) ?? 'undefined', VALUE_PREVIEW_LIMIT);
    }
    const error = node.error as { code?: unknown; message?: unknown } | undefined;
    if (typeof error?.message === 'string') {
      status.error = clipped(`${String(error.code ?? 'error')}: ${error.message}`, MESSAGE_LIMIT);
    }
    statuses[node.id] = status;
  }
  return statuses;
}

/**
 * The webview's HTML: a strict content security policy (the extension's own two scripts, by
 * nonce, and its stylesheet; nothing remote, no inline style) and the renderer's container.
 */
export function graphPageHtml(page: {
  cspSource: string;
  nonce: string;
  rendererUri: string;
  pageScriptUri: string;
  pageStyleUri: string;
  title: string;
}): string {
  const policy = [
    "default-src 'none'",
    `script-src 'nonce-${page.nonce}'`,
    // the page's own stylesheet; the renderer styles through SVG attributes and CSSOM
    // properties, which need no exception
    `style-src ${page.cspSource}`,
    `img-src ${page.cspSource} data:`,
  ].join('; ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.title)}</title>`,
    `<link rel="stylesheet" href="${escapeHtml(page.pageStyleUri)}">`,
    '</head>',
    '<body>',
    '<div id="relavium-problem" role="status" hidden></div>',
    '<div id="relavium-graph"></div>',
    `<script nonce="${page.nonce}" src="${escapeHtml(page.rendererUri)}"></script>`,
    `<script nonce="${page.nonce}" src="${escapeHtml(page.pageScriptUri)}"></script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A nonce from 16 random bytes (`randomBytes` is node:crypto's, passed in for tests). */
export function makeNonce(randomBytes: (size: number) => Uint8Array): string {
  return Buffer.from(randomBytes(16)).toString('base64url');
}

/**
 * Runs `refresh` for each `request()`, never two at once: a request during a refresh runs one
 * more refresh after it (however many came), so the last edit is always drawn and a burst of
 * edits costs at most two requests in flight order.
 */
export class RefreshQueue {
  private running = false;
  private again = false;

  constructor(private readonly refresh: () => Promise<void>) {}

  request(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.refresh();
      } catch {
        // the refresh reports its own failures; the next request tries again
      }
    } while (this.again);
    this.running = false;
  }
}
