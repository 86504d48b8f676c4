// The commands the server implements (workspace/executeCommand) and the argument the extension
// sends them, kept free of `vscode` so the integration tests send exactly the same to the real
// server.

export const SERVER_RUN = 'relavium.runWithSampleScope';
export const SERVER_CREATE_SCOPE = 'relavium.createSampleScope';
export const SERVER_DRY_RUN = 'relavium.dryRunWorkflow';

/** The one argument of Create Sample Scope and Dry-run Workflow: the workflow's document. */
export function documentArgument(uri: string): { uri: string } {
  return { uri };
}
