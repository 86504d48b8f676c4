// "Relavium: Show Workflow Graph": a webview beside the editor that draws the active workflow's
// graph with the renderer `relavium-lsp graph --format html` uses (copied into out/graph/ at
// build time), redrawn after each edit once the server has analysed it, the node under the
// cursor highlighted, a click revealing the node's declaration, and the last dry run's statuses
// of that document on its nodes. The decisions are in graphViewModel.ts (unit-tested).

import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  GRAPH_ASSETS_FOLDER,
  PAGE_SCRIPT_FILE,
  PAGE_STYLE_FILE,
  RENDERER_FILE,
  RefreshQueue,
  SERVER_WORKFLOW_GRAPH,
  declarationOf,
  graphOrProblem,
  graphPageHtml,
  makeNonce,
  nodeAt,
  statusesFromDryRun,
  type FromPage,
  type GraphJson,
  type NodeStatus,
  type ToPage,
} from './graphViewModel';
import { isWorkflowPath } from './workflowFiles';

const VIEW_TYPE = 'relavium.workflowGraph';
const NOT_RUNNING = 'The Relavium language server is not running: see "Relavium: Show Output".';

/** What the view needs of the extension. */
export interface GraphViewHost {
  /** A server command's answer; undefined when the server is not running (nothing shown). */
  request(command: string, argument: object): Promise<unknown>;
  warn(message: string): void;
}

export class GraphView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private pageReady = false;
  // the workflow drawn: the last workflow editor that was active
  private document: vscode.TextDocument | undefined;
  private graph: GraphJson | undefined;
  private highlighted: string | null = null;
  // uri → the statuses of the last dry run of that document (until it is closed)
  private readonly dryRuns = new Map<string, Record<string, NodeStatus>>();
  private readonly refreshes = new RefreshQueue(() => this.refresh());
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly extensionUri: vscode.Uri, private readonly host: GraphViewHost) {
    this.subscriptions = [
      vscode.window.onDidChangeActiveTextEditor((editor) => this.follow(editor)),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor.document === this.document) {
          this.highlightAt(event.selections[0]?.active);
        }
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        this.dryRuns.delete(document.uri.toString());
      }),
    ];
  }

  /** The command: opens the view beside the active workflow, or brings it forward. */
  show(): void {
    const editor = vscode.window.activeTextEditor;
    const workflow = editor !== undefined && isWorkflowPath(editor.document.uri.path);
    if (!workflow && this.document === undefined) {
      this.host.warn('Show workflow graph: open a Relavium workflow file (*.relavium.yaml) first.');
      return;
    }
    if (this.panel === undefined) {
      this.panel = this.createPanel();
    } else {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
    }
    this.follow(editor);
  }

  /**
   * The client has sent the server an edit of `document` (its didChange middleware): a request
   * sent now reaches the server after the edit, which answers it once it has analysed that
   * version, as its diagnostics go out. (VS Code's own change event may come before the client
   * sends the edit: a request then would draw the text before it.)
   */
  documentChanged(document: vscode.TextDocument): void {
    if (document === this.document) {
      this.refreshes.request();
    }
  }

  /** Keeps a dry run's statuses for its document and shows them when it is the one drawn. */
  dryRunFinished(uri: string, answer: unknown): void {
    const statuses = statusesFromDryRun(answer);
    if (statuses === undefined) {
      return;
    }
    this.dryRuns.set(uri, statuses);
    if (this.document?.uri.toString() === uri) {
      this.post({ type: 'statuses', statuses });
    }
  }

  dispose(): void {
    this.panel?.dispose();
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }

  private createPanel(): vscode.WebviewPanel {
    const assets = vscode.Uri.joinPath(this.extensionUri, ...GRAPH_ASSETS_FOLDER);
    const panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      'Workflow Graph',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [assets], retainContextWhenHidden: true },
    );
    const asset = (file: string): string =>
      panel.webview.asWebviewUri(vscode.Uri.joinPath(assets, file)).toString();
    panel.webview.html = graphPageHtml({
      cspSource: panel.webview.cspSource,
      nonce: makeNonce(crypto.randomBytes),
      rendererUri: asset(RENDERER_FILE),
      pageScriptUri: asset(PAGE_SCRIPT_FILE),
      pageStyleUri: asset(PAGE_STYLE_FILE),
      title: 'Workflow Graph',
    });
    panel.webview.onDidReceiveMessage((message: FromPage) => this.received(message));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.pageReady = false;
      this.document = undefined;
      this.graph = undefined;
    });
    return panel;
  }

  /** Draws `editor`'s workflow when it is another than the one drawn. */
  private follow(editor: vscode.TextEditor | undefined): void {
    // focus in the view itself, or in a file that is no workflow, leaves the graph as it is
    if (editor === undefined || !isWorkflowPath(editor.document.uri.path)) {
      return;
    }
    if (this.panel === undefined || editor.document === this.document) {
      return;
    }
    this.document = editor.document;
    this.graph = undefined;
    this.highlighted = null;
    this.panel.title = `Graph: ${path.basename(editor.document.uri.fsPath)}`;
    this.post({ type: 'statuses', statuses: this.dryRuns.get(editor.document.uri.toString()) ?? {} });
    this.refreshes.request();
  }

  private received(message: FromPage): void {
    if (message.type === 'ready') {
      this.pageReady = true;
      const uri = this.document?.uri.toString();
      this.post({ type: 'statuses', statuses: (uri && this.dryRuns.get(uri)) || {} });
      this.refreshes.request();
    } else if (message.type === 'reveal') {
      void this.reveal(message.id);
    }
  }

  private async refresh(): Promise<void> {
    const document = this.document;
    if (this.panel === undefined || !this.pageReady || document === undefined) {
      return;
    }
    let answer: unknown;
    try {
      answer = await this.host.request(SERVER_WORKFLOW_GRAPH, {
        uri: document.uri.toString(),
        format: 'json',
      });
    } catch (error) {
      answer = { ok: false, error: { message: error instanceof Error ? error.message : String(error) } };
    }
    if (document !== this.document) {
      return; // another workflow is drawn now (its own refresh is queued)
    }
    if (answer === undefined) {
      this.post({ type: 'problem', message: NOT_RUNNING });
      return;
    }
    const drawn = graphOrProblem(answer);
    if ('problem' in drawn) {
      // the last graph stays, under the reason it is not redrawn (a YAML error mid-edit)
      this.post({ type: 'problem', message: drawn.problem });
      return;
    }
    this.graph = drawn.graph;
    this.post({ type: 'graph', graph: answer });
    const editor = vscode.window.visibleTextEditors.find((each) => each.document === document);
    this.highlightAt(editor?.selection.active);
  }

  private highlightAt(position: vscode.Position | undefined): void {
    if (this.graph === undefined || position === undefined) {
      return;
    }
    const id = nodeAt(this.graph, { line: position.line, character: position.character }) ?? null;
    if (id !== this.highlighted) {
      this.highlighted = id;
      this.post({ type: 'highlight', id });
    }
  }

  /** A click on a node: its id in the declaration, selected in the workflow's editor. */
  private async reveal(id: string): Promise<void> {
    const span = this.graph && declarationOf(this.graph, id);
    if (this.document === undefined || span === undefined) {
      return;
    }
    const shown = vscode.window.visibleTextEditors.find((each) => each.document === this.document);
    const range = new vscode.Range(
      span.start.line,
      span.start.character,
      span.end.line,
      span.end.character,
    );
    const editor = await vscode.window.showTextDocument(this.document, {
      viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One,
      selection: range,
    });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private post(message: ToPage): void {
    if (this.panel !== undefined && this.pageReady) {
      void this.panel.webview.postMessage(message);
    }
  }
}
