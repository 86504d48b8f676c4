// VS Code glue: starts the server once a workflow file is open, and wires the commands. Every
// decision that can be made without `vscode` lives in the sibling modules and is unit-tested.
// A run's result needs no code here: the server reports it as window/showMessage (the
// notification) and window/logMessage (the detail, in the Relavium output channel).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  ExecuteCommandRequest,
  State,
  type LanguageClientOptions,
  type Middleware,
} from 'vscode-languageclient/node';
import {
  LaunchError,
  RESTRICTED_MODE_NOTE,
  isInside,
  remoteSettingsNote,
  resolveLaunch,
  type LaunchSpec,
} from './launch';
import {
  ProvisionError,
  bundledServer,
  findPython,
  isProvisioned,
  noPythonMessage,
  provision,
  type BundledServer,
} from './provision';
import {
  LaunchFailure,
  RestartPolicy,
  StderrLevels,
  commandLine,
  failureMessage,
  spawnServer,
  type ServerProcess,
} from './serverProcess';
import {
  SERVER_CREATE_SCOPE,
  SERVER_DRY_RUN,
  SERVER_RUN,
  documentArgument,
  nodeArgument,
  offeredNodes,
  positionArgument,
} from './serverCommands';
import { GraphView } from './graphView';
import { RESTART_SETTINGS, readLaunchSettings, serverSection } from './settings';
import { DOCUMENT_SELECTOR, RELAVIUM_GLOBS, fileKind, isWorkflowPath } from './workflowFiles';

const SECTION = 'relavium';
const SHOW_OUTPUT = 'Show Output';
const OPEN_SETTINGS = 'Open Settings';
const SETTINGS_QUERY = '@ext:relavium.relavium-lsp';

/** Interpreters tried for the bundled server after the Python extension's. */
const PATH_PYTHONS = process.platform === 'win32' ? ['python', 'py'] : ['python3', 'python'];

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let restrictedModeNoted = false;
let graphView: GraphView | undefined;
let bundled: BundledServer | undefined;

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel('Relavium', { log: true });
  graphView = new GraphView(context.extensionUri, { request: quietServerCommand, warn });
  const shownGraph = graphView;
  // One environment per extension version: an update installs its own server on first use.
  bundled = bundledServer(
    context.extensionPath,
    context.globalStorageUri.fsPath,
    String(context.extension.packageJSON.version),
    process.platform,
  );
  context.subscriptions.push(
    output,
    shownGraph,
    vscode.commands.registerCommand('relavium.showWorkflowGraph', () => shownGraph.show()),
    vscode.commands.registerCommand('relaviumLsp.runWithSampleScope', runWithSampleScope),
    vscode.commands.registerCommand('relaviumLsp.createSampleScope', createSampleScope),
    vscode.commands.registerCommand('relaviumLsp.dryRunWorkflow', dryRunWorkflow),
    vscode.commands.registerCommand('relaviumLsp.restartServer', restartServer),
    vscode.commands.registerCommand('relaviumLsp.showOutput', () => output.show(true)),
    vscode.workspace.onDidOpenTextDocument(startForDocument),
    vscode.workspace.onDidChangeConfiguration(configurationChanged),
    // Trust can only be granted, never withdrawn, within a session: restart with the full settings.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void (client && restartServer())),
    { dispose: () => void client?.stop() },
  );
  // Activation may come from any YAML file: only a Relavium file is worth a Python process.
  vscode.workspace.textDocuments.forEach(startForDocument);
  void startForWorkspace();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

function startForDocument(document: vscode.TextDocument): void {
  if (client === undefined && fileKind(document.uri.path) !== undefined) {
    void startOnce();
  }
}

/** One start at a time: a document opened while the folder's start provisions waits for it. */
let starting: Promise<LanguageClient | undefined> | undefined;

function startOnce(): Promise<LanguageClient | undefined> {
  starting ??= startClient().finally(() => {
    starting = undefined;
  });
  return starting;
}

/**
 * With `diagnostics.scope: workspace` the Problems panel shows files nobody opened, so a folder
 * holding a Relavium file starts the server without waiting for an editor.
 */
async function startForWorkspace(): Promise<void> {
  const scope = vscode.workspace.getConfiguration(SECTION).get<string>('diagnostics.scope');
  if (scope !== 'workspace') {
    return;
  }
  for (const pattern of RELAVIUM_GLOBS) {
    if (client !== undefined) {
      return;
    }
    if ((await vscode.workspace.findFiles(pattern, undefined, 1)).length > 0) {
      if (client === undefined) {
        await startOnce();
      }
      return;
    }
  }
}

async function startClient(): Promise<LanguageClient | undefined> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const trusted = vscode.workspace.isTrusted;
  if (!trusted && !restrictedModeNoted) {
    restrictedModeNoted = true;
    output.info(RESTRICTED_MODE_NOTE);
  }
  const launchSettings = readLaunchSettings((key) => config.inspect(key), trusted);
  launchSettings.notes.forEach((note) => output.info(note));
  launchSettings.problems.forEach((problem) => warn(problem));
  let launch: LaunchSpec;
  try {
    launch = resolveLaunch(launchSettings.value, {
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      homeDir: os.homedir(),
      platform: process.platform,
      isFile: (candidate) => fs.statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false,
      trusted,
      bundledServer: bundled?.executable,
    });
  } catch (error) {
    if (error instanceof LaunchError) {
      reportFailure(error.message);
      return undefined;
    }
    throw error;
  }
  if (launch.origin === 'bundled' && bundled !== undefined && !isProvisioned(bundled)) {
    if (!(await provisionBundled(bundled, trusted))) {
      return undefined;
    }
  }
  output.info(`starting ${commandLine(launch)} (from ${launch.origin})`);
  const remoteNote = remoteSettingsNote(vscode.env.remoteName, launch);
  if (remoteNote !== undefined) {
    output.info(remoteNote);
  }
  const explain = (message: string): string =>
    remoteNote === undefined ? message : `${message} ${remoteNote}`;
  // The process the client runs now; a restart after a crash spawns a new one.
  let server: ServerProcess | undefined;
  // A failed start ends both in `closed` and in `start()` rejecting: one notification each.
  const reported = new WeakSet<ServerProcess>();
  const reportServerFailure = async (crashed: boolean, error?: unknown): Promise<void> => {
    const failed = server;
    if (failed === undefined || reported.has(failed)) {
      return;
    }
    reported.add(failed);
    let cause = await failed.cause();
    if (failed.exit === undefined && error !== undefined) {
      cause = String(error); // it runs but refused `initialize`: the answer says why
    }
    reportFailure(explain(failureMessage(launch, cause, crashed)));
  };
  const restarts = new RestartPolicy();
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    initializationOptions: serverSection(vscode.workspace.getConfiguration().get(SECTION)),
    middleware,
    errorHandler: {
      error: (_error, _message, count) => ({
        action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
        handled: true,
      }),
      closed: async () => {
        const wasRunning = started.state === State.Running;
        if (restarts.shouldRestart(Date.now(), wasRunning)) {
          output.warn(`relavium-lsp stopped (${await server?.cause()}); restarting it`);
          return { action: CloseAction.Restart, handled: true };
        }
        // Started and died before answering `initialize`, or keeps crashing: no restart loop.
        void reportServerFailure(wasRunning);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
    // An `initialize` that fails is reported by `closed` above or the catch below, not here.
    initializationFailedHandler: () => false,
    // spawnServer reads stderr itself (for the cause of a failure) and logs it at its level
    stdioOptions: { stdout: () => undefined, stderr: () => undefined },
  };
  const started = new QuietLanguageClient(
    'relavium',
    'Relavium',
    async () => {
      const levels = new StderrLevels();
      server = await spawnServer(launch, (line) => output[levels.levelOf(line)](line));
      return server.child;
    },
    clientOptions,
  );
  client = started;
  // With a spawn function the client does not end the process itself; the server exits on
  // `exit` or when its stdin closes, and this ends one that hangs.
  started.onDidChangeState(({ newState }) => {
    if (newState === State.Stopped) {
      server?.terminateLater();
    }
  });
  try {
    await started.start();
  } catch (error) {
    // A command that cannot be spawned never opens a connection, so `closed` is not called.
    if (error instanceof LaunchFailure) {
      reportFailure(explain(error.message));
    } else {
      await reportServerFailure(false, error);
    }
  }
  return started;
}

/** Installs the server the package carries, with a progress notification; false if it could
 *  not (no suitable Python, or pip failed), after saying why. */
async function provisionBundled(server: BundledServer, trusted: boolean): Promise<boolean> {
  const candidates = [...(await pythonExtensionInterpreter(trusted)), ...PATH_PYTHONS];
  const { found, rejected } = await findPython(candidates);
  if (found === undefined) {
    reportFailure(noPythonMessage(rejected));
    return false;
  }
  output.info(
    `installing the bundled relavium-lsp into ${server.environment} with ${found.python} ` +
      `(Python ${found.version}), offline`,
  );
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Relavium: setting up its language server (first start, offline)…',
      },
      () => provision(server, found.python, (line) => output.info(line)),
    );
  } catch (error) {
    if (error instanceof ProvisionError) {
      reportFailure(error.message);
      return false;
    }
    throw error;
  }
  return true;
}

/** The subset of the Python extension's API read here (ms-python.python `environments`). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(
      environment: { path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The interpreter selected in the Python extension, if it is installed and has one. In an
 *  untrusted workspace one inside the folder (its .venv) is not run. */
async function pythonExtensionInterpreter(trusted: boolean): Promise<string[]> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (extension === undefined) {
    return [];
  }
  try {
    const environments = (await extension.activate())?.environments;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = environments?.getActiveEnvironmentPath(folder);
    const resolved = active && (await environments?.resolveEnvironment(active));
    const executable = resolved?.executable?.uri?.fsPath;
    if (executable === undefined) {
      return [];
    }
    const env = { homeDir: os.homedir(), platform: process.platform };
    if (!trusted && folder !== undefined && isInside(folder.fsPath, executable, env)) {
      output.info(`the Python extension's ${executable} is inside the untrusted workspace: not used`);
      return [];
    }
    return [executable];
  } catch (error) {
    output.warn(`the Python extension gave no interpreter: ${String(error)}`);
    return [];
  }
}

/**
 * vscode-languageclient shows its own toasts for a failed start or a crash ("couldn't create
 * connection", "crashed 5 times") without the cause; the extension reports those itself, once,
 * with the command and the server's own error, so the client's messages only go to the log.
 */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    if (!(data instanceof Error)) {
      super.error(message, data, false);
    } else if (!/is not running/.test(data.message)) {
      // one line: a stack of the client's own code says nothing to a user
      const line = data instanceof LaunchFailure ? message : `${message} (${data.message})`;
      super.error(line, undefined, false);
    }
    // else: the client stopping a server that never started, after a failure already reported
  }
}

function reportFailure(message: string): void {
  output.error(message);
  void vscode.window
    .showErrorMessage(message, SHOW_OUTPUT, OPEN_SETTINGS)
    .then((action) => {
      if (action === SHOW_OUTPUT) {
        output.show(true);
      } else if (action === OPEN_SETTINGS) {
        void vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_QUERY);
      }
    });
}

const middleware: Middleware = {
  // Every dry run (the command, the code lens) passes here: the graph view colours its nodes
  // with the last one of each document.
  executeCommand: async (command, args, next) => {
    const answer = await next(command, args);
    const uri = (args[0] as { uri?: unknown } | undefined)?.uri;
    if (command === SERVER_DRY_RUN && typeof uri === 'string') {
      graphView?.dryRunFinished(uri, answer);
    }
    return answer;
  },
  didChange: async (event, next) => {
    await next(event);
    graphView?.documentChanged(event.document);
  },
  workspace: {
    // VS Code answers with the whole section; the server reads only its own keys.
    configuration: async (params, token, next) => {
      const answers = await next(params, token);
      if (!Array.isArray(answers)) {
        return answers;
      }
      return answers.map((answer, index) =>
        params.items[index]?.section === SECTION ? serverSection(answer) : answer,
      );
    },
  },
};

/** The server runs the node the cursor is in and shows the result; a cursor in no node with an
 *  expression is refused (shown) with the nodes that have one, offered here instead. */
async function runWithSampleScope(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !isWorkflowPath(editor.document.uri.path)) {
    warn('Run with sample scope: open a Relavium workflow file (*.relavium.yaml) first.');
    return;
  }
  const uri = editor.document.uri.toString();
  const { line, character } = editor.selection.active;
  const offered = offeredNodes(
    await serverCommand(SERVER_RUN, positionArgument(uri, line, character)),
  );
  if (offered === undefined || offered.length === 0) {
    return;
  }
  const picked = await vscode.window.showQuickPick(offered, {
    placeHolder: 'Which node should run with a sample scope?',
  });
  if (picked !== undefined) {
    await serverCommand(SERVER_RUN, nodeArgument(uri, picked));
  }
}

async function createSampleScope(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !isWorkflowPath(editor.document.uri.path)) {
    warn('Create sample scope: open a Relavium workflow file (*.relavium.yaml) first.');
    return;
  }
  const result = await serverCommand(
    SERVER_CREATE_SCOPE,
    documentArgument(editor.document.uri.toString()),
  );
  if (result !== undefined) {
    output.info(`createSampleScope: ${JSON.stringify(result)}`);
  }
}

/** The server shows the results itself: values as inlay hints, nodes that would not run dimmed,
 *  failures as diagnostics, until the next edit; the trace goes to the output channel. */
async function dryRunWorkflow(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !isWorkflowPath(editor.document.uri.path)) {
    warn('Dry-run workflow: open a Relavium workflow file (*.relavium.yaml) first.');
    return;
  }
  await serverCommand(SERVER_DRY_RUN, documentArgument(editor.document.uri.toString()));
}

/** Runs a server command through the VS Code command vscode-languageclient registers for it. */
async function serverCommand(command: string, argument: object): Promise<unknown> {
  if (client === undefined || !client.isRunning()) {
    warn('The Relavium language server is not running: see "Relavium: Show Output".');
    return undefined;
  }
  const available = await vscode.commands.getCommands(true);
  if (!available.includes(command)) {
    warn(`The running relavium-lsp does not provide ${command}; update it.`);
    return undefined;
  }
  return vscode.commands.executeCommand(command, argument);
}

/** A server command sent in the background (the graph view's redraws): nothing to say when the
 *  server is not running (undefined), an older server's refusal rejects. */
async function quietServerCommand(command: string, argument: object): Promise<unknown> {
  if (client === undefined || !client.isRunning()) {
    return undefined;
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] });
}

async function restartServer(): Promise<void> {
  if (client === undefined) {
    await startClient();
    return;
  }
  const stopping = client;
  client = undefined;
  // A server that failed to start has nothing to stop.
  if (stopping.needsStop()) {
    await stopping.stop().catch((error: unknown) => output.warn(`stop failed: ${String(error)}`));
  }
  await startClient();
}

function configurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (client === undefined && event.affectsConfiguration(`${SECTION}.diagnostics.scope`)) {
    void startForWorkspace();
  }
  if (client === undefined || !event.affectsConfiguration(SECTION)) {
    return;
  }
  if (RESTART_SETTINGS.some((setting) => event.affectsConfiguration(setting))) {
    void restartServer();
    return;
  }
  const settings = serverSection(vscode.workspace.getConfiguration().get(SECTION));
  void client.sendNotification(DidChangeConfigurationNotification.type, {
    settings: { [SECTION]: settings },
  });
}

function warn(message: string): void {
  output.warn(message);
  void vscode.window.showWarningMessage(message);
}
