// VS Code glue: starts the server once a workflow file is open, and wires the commands. Every
// decision that can be made without `vscode` lives in the sibling modules and is unit-tested.
// A run's result needs no code here: the server reports it as window/showMessage (the
// notification) and window/logMessage (the detail, in the Relavium output channel).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
} from 'vscode-languageclient/node';
import { LaunchError, resolveLaunch } from './launch';
import { RESTART_SETTINGS, readLaunchSettings, serverSection } from './settings';
import { DOCUMENT_SELECTOR, isWorkflowPath } from './workflowFiles';
import { nodeAtOffset, workflowNodes } from './workflowNodes';

const SECTION = 'relavium';
/** Commands the server implements (workspace/executeCommand); the client registers them. */
const SERVER_RUN = 'relavium.runWithSampleScope';
const SERVER_CREATE_SCOPE = 'relavium.createSampleScope';
const SERVER_DRY_RUN = 'relavium.dryRunWorkflow';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel('Relavium', { log: true });
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('relaviumLsp.runWithSampleScope', runWithSampleScope),
    vscode.commands.registerCommand('relaviumLsp.createSampleScope', createSampleScope),
    vscode.commands.registerCommand('relaviumLsp.dryRunWorkflow', dryRunWorkflow),
    vscode.commands.registerCommand('relaviumLsp.restartServer', restartServer),
    vscode.commands.registerCommand('relaviumLsp.showOutput', () => output.show(true)),
    vscode.workspace.onDidOpenTextDocument(startForDocument),
    vscode.workspace.onDidChangeConfiguration(configurationChanged),
    { dispose: () => void client?.stop() },
  );
  // Activation may come from any YAML file: only a workflow file is worth a Python process.
  vscode.workspace.textDocuments.forEach(startForDocument);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

function startForDocument(document: vscode.TextDocument): void {
  if (client === undefined && isWorkflowPath(document.uri.path)) {
    void startClient();
  }
}

async function startClient(): Promise<LanguageClient | undefined> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const launchSettings = readLaunchSettings((key) => config.get(key));
  launchSettings.problems.forEach((problem) => warn(problem));
  let launch;
  try {
    launch = resolveLaunch(launchSettings.value, {
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      homeDir: os.homedir(),
      platform: process.platform,
      isFile: (candidate) => fs.statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false,
    });
  } catch (error) {
    if (error instanceof LaunchError) {
      warn(error.message);
      return undefined;
    }
    throw error;
  }
  output.info(`starting ${launch.command} ${launch.args.join(' ')} (from ${launch.origin})`);
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    initializationOptions: serverSection(vscode.workspace.getConfiguration().get(SECTION)),
    middleware,
  };
  const started = new LanguageClient(
    'relavium',
    'Relavium',
    { command: launch.command, args: launch.args, options: { cwd: launch.cwd } },
    clientOptions,
  );
  client = started;
  try {
    await started.start();
  } catch (error) {
    warn(
      `relavium-lsp did not start (${launch.command}, from ${launch.origin}): ${String(error)}. ` +
        'Install it (pipx install relavium-lsp) or set relavium.server.path or relavium.python.',
    );
  }
  return started;
}

const middleware: Middleware = {
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

async function runWithSampleScope(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !isWorkflowPath(editor.document.uri.path)) {
    warn('Run with sample scope: open a Relavium workflow file (*.relavium.yaml) first.');
    return;
  }
  const text = editor.document.getText();
  let node = nodeAtOffset(text, editor.document.offsetAt(editor.selection.active));
  if (node?.expressionField === undefined) {
    const candidates = workflowNodes(text).filter((each) => each.expressionField !== undefined);
    if (candidates.length === 0) {
      warn('Run with sample scope: this workflow has no condition, transform or merge_fn node.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((each) => ({ label: each.id, description: each.type, node: each })),
      { placeHolder: 'Which node should run with a sample scope?' },
    );
    node = picked?.node;
  }
  if (node === undefined) {
    return;
  }
  await serverCommand(SERVER_RUN, { uri: editor.document.uri.toString(), node: node.id });
}

async function createSampleScope(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !isWorkflowPath(editor.document.uri.path)) {
    warn('Create sample scope: open a Relavium workflow file (*.relavium.yaml) first.');
    return;
  }
  const result = await serverCommand(SERVER_CREATE_SCOPE, { uri: editor.document.uri.toString() });
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
  await serverCommand(SERVER_DRY_RUN, { uri: editor.document.uri.toString() });
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

async function restartServer(): Promise<void> {
  if (client === undefined) {
    await startClient();
    return;
  }
  const stopping = client;
  client = undefined;
  await stopping.stop().catch((error: unknown) => output.warn(`stop failed: ${String(error)}`));
  await startClient();
}

function configurationChanged(event: vscode.ConfigurationChangeEvent): void {
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
