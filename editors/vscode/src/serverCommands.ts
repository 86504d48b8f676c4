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

/**
 * Run with Sample Scope at the cursor: the server finds the node the position is in. The
 * character is in UTF-16 code units, as VS Code counts them and as vscode-languageclient
 * negotiates.
 */
export function positionArgument(
  uri: string,
  line: number,
  character: number,
): { uri: string; position: { line: number; character: number } } {
  return { uri, position: { line, character } };
}

/** Run with Sample Scope for a node chosen by its id. */
export function nodeArgument(uri: string, node: string): { uri: string; node: string } {
  return { uri, node };
}

/**
 * The node ids a run refused at a position offers instead (`error.runnable`: the position is in
 * no node with an expression), in node order; undefined for any other answer.
 */
export function offeredNodes(answer: unknown): string[] | undefined {
  if (typeof answer !== 'object' || answer === null || !('error' in answer)) {
    return undefined;
  }
  const { error } = answer;
  if (typeof error !== 'object' || error === null || !('runnable' in error)) {
    return undefined;
  }
  const { runnable } = error;
  return Array.isArray(runnable) && runnable.every((id) => typeof id === 'string')
    ? runnable
    : undefined;
}
