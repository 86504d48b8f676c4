// A real relavium-lsp process started from the extension's own launch spec, spoken to over
// stdio with the same protocol library vscode-languageclient uses.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { pathToFileURL } from 'node:url';
import {
  ConfigurationRequest,
  createProtocolConnection,
  DiagnosticRefreshRequest,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExitNotification,
  InitializeRequest,
  InitializedNotification,
  InlayHintRefreshRequest,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShowMessageNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgressCreateRequest,
  type ClientCapabilities,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { resolveLaunch, type LaunchSpec } from '../src/launch';
import { readLaunchSettings, serverSection } from '../src/settings';

const WAIT_MS = 20000;

/** What VS Code would answer for the `relavium` section: launch keys included, filtered. */
export const VSCODE_SECTION = {
  server: { path: '', args: ['serve'] },
  python: '',
  debounceMs: 0,
  rules: {},
  sampleScope: '',
};

export class ServerSession {
  /** window/showMessage texts (VS Code shows them as notifications), in arrival order. */
  readonly shown: string[] = [];
  /** window/logMessage texts (they go to the output channel), in arrival order. */
  readonly logged: string[] = [];
  initializeResult: InitializeResult | undefined;
  /** The `relavium` section as VS Code would answer it now; see `changeSettings`. */
  private section: Record<string, unknown> = { ...VSCODE_SECTION };
  /** workspace/diagnostic/refresh requests received. */
  refreshes = 0;
  /** workspace/inlayHint/refresh requests received. */
  inlayHintRefreshes = 0;
  /** Per workspace/configuration answer, how many refreshes had come before it. */
  private readonly configurationAnswers: number[] = [];
  private readonly published = new Map<string, Diagnostic[]>();
  private readonly waiters: Array<() => void> = [];
  private readonly connection: ProtocolConnection;

  private constructor(
    readonly launch: LaunchSpec,
    private readonly child: ChildProcess,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    this.connection = createProtocolConnection(
      new StreamMessageReader(child.stdout as NodeJS.ReadableStream),
      new StreamMessageWriter(child.stdin as NodeJS.WritableStream),
    );
    this.connection.onRequest(ConfigurationRequest.type, (params) => {
      this.configurationAnswers.push(this.refreshes);
      this.waiters.splice(0).forEach((wake) => wake());
      return params.items.map((item) =>
        item.section === 'relavium' ? serverSection(this.section) : null,
      );
    });
    this.connection.onRequest(DiagnosticRefreshRequest.type, () => {
      this.refreshes += 1;
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.connection.onRequest(InlayHintRefreshRequest.type, () => {
      this.inlayHintRefreshes += 1;
    });
    this.connection.onRequest(RegistrationRequest.type, () => undefined);
    this.connection.onRequest(WorkDoneProgressCreateRequest.type, () => undefined);
    this.connection.onNotification(LogMessageNotification.type, ({ message }) => {
      this.logged.push(message);
    });
    this.connection.onNotification(ShowMessageNotification.type, ({ message }) => {
      this.shown.push(message);
    });
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.set(params.uri, params.diagnostics);
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.connection.listen();
  }

  /** Starts the server the way the extension does when no relavium.* launch setting is set. */
  static async start(workspaceFolder: string): Promise<ServerSession> {
    const launch = resolveLaunch(readLaunchSettings(() => undefined, true).value, {
      workspaceFolder,
      homeDir: os.homedir(),
      platform: process.platform,
      isFile: (candidate) => fs.statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false,
      trusted: true,
    });
    const session = new ServerSession(
      launch,
      spawn(launch.command, launch.args, { cwd: launch.cwd, stdio: 'pipe' }),
    );
    const folder = pathToFileURL(workspaceFolder).href;
    session.initializeResult = await withTimeout(
      session.connection.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: folder,
        workspaceFolders: [{ uri: folder, name: 'workspace' }],
        initializationOptions: serverSection(VSCODE_SECTION),
        capabilities: VSCODE_CAPABILITIES,
      }),
      `initialize of ${launch.command}`,
    );
    await session.connection.sendNotification(InitializedNotification.type, {});
    return session;
  }

  async open(uri: string, text: string): Promise<void> {
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'yaml', version: 1, text },
    });
  }

  /** An edit, as VS Code sends it with full sync: the whole new text. */
  async change(uri: string, version: number, text: string): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
  }

  /** The document's diagnostics, pulled when the server offers pull (as VS Code does). */
  async diagnostics(uri: string): Promise<Diagnostic[]> {
    if (this.initializeResult?.capabilities.diagnosticProvider !== undefined) {
      const report = await withTimeout(
        this.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri } }),
        `diagnostics of ${uri}`,
      );
      return report.kind === 'full' ? report.items : [];
    }
    await this.until(() => this.published.has(uri), `published diagnostics of ${uri}`);
    return this.published.get(uri) ?? [];
  }

  /** What the extension does on a settings change: push the new section, as it reads it. */
  async changeSettings(changes: Record<string, unknown>): Promise<void> {
    this.section = { ...this.section, ...changes };
    const answers = this.configurationAnswers.length;
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { relavium: serverSection(this.section) },
    });
    // the refresh that follows the server's fetch of the new section (not an earlier one)
    await this.until(() => this.configurationAnswers.length > answers, 'the settings fetch');
    const before = this.configurationAnswers[answers] ?? 0;
    await this.until(() => this.refreshes > before, 'workspace/diagnostic/refresh');
  }

  private until(done: () => boolean, what: string): Promise<void> {
    return withTimeout(
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (done()) {
            resolve();
          } else {
            this.waiters.push(check);
          }
        };
        check();
      }),
      what,
    );
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return withTimeout(this.connection.sendRequest(method, params) as Promise<R>, method);
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', resolve));
    await withTimeout(this.connection.sendRequest(ShutdownRequest.type), 'shutdown');
    await this.connection.sendNotification(ExitNotification.type);
    const code = await withTimeout(exited, 'server exit');
    this.connection.dispose();
    return code;
  }
}

/** The subset of vscode-languageclient 11's client capabilities the server looks at. */
const VSCODE_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: {
    configuration: true,
    didChangeConfiguration: { dynamicRegistration: true },
    workspaceFolders: true,
    executeCommand: { dynamicRegistration: true },
    diagnostics: { refreshSupport: true },
    inlayHint: { refreshSupport: true },
  },
  window: { workDoneProgress: true, showMessage: {} },
  textDocument: {
    synchronization: { dynamicRegistration: true, didSave: true },
    publishDiagnostics: {
      relatedInformation: true,
      versionSupport: false,
      codeDescriptionSupport: true,
      dataSupport: true,
      tagSupport: { valueSet: [1, 2] },
    },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
    inlayHint: {
      dynamicRegistration: true,
      resolveSupport: {
        properties: ['tooltip', 'textEdits', 'label.tooltip', 'label.location', 'label.command'],
      },
    },
    completion: {
      dynamicRegistration: true,
      completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] },
    },
  },
};

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms: ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
