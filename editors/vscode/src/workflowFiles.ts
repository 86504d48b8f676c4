// Which files are Relavium's, and which kind: the same decision as the server's
// (analysis/project/kinds.py `file_kind`; test/workflowFiles.test.ts holds both to one table,
// tests/fixtures/file-kinds.json). Kept free of `vscode` so `node --test` can check it; the globs
// here are the ones the manifest and the language client use.

/** Globs (relative to any folder) the server serves; the manifest repeats them. */
export const RELAVIUM_GLOBS = [
  '**/*.relavium.yaml',
  '**/*.relavium.yml',
  '**/*.agent.yaml',
  '**/*.agent.yml',
  '**/.relavium/**/*.yaml',
  '**/.relavium/**/*.yml',
] as const;

/** The language client's document selector: Relavium YAML on disk and in unsaved editors. */
export const DOCUMENT_SELECTOR = RELAVIUM_GLOBS.flatMap((pattern) => [
  { scheme: 'file', language: 'yaml', pattern },
  { scheme: 'untitled', language: 'yaml', pattern },
]);

export type FileKind = 'workflow' | 'agent';

const YAML_NAME = /\.ya?ml$/i;
const SIDECAR_NAME = /\.samples\.(json|ya?ml)$/i;
const AGENT_NAME = /\.agent\.ya?ml$/i;
const WORKFLOW_NAME = /\.relavium\.ya?ml$/i;

/**
 * What a path holds, first match wins: a sample-scope sidecar is nothing; any YAML in
 * `.relavium/agents/` is an agent and in `.relavium/workflows/` a workflow (the engine's catalog
 * folders); then `*.agent.yaml` is an agent; `*.relavium.yaml`, and other YAML under
 * `.relavium/`, a workflow.
 */
export function fileKind(path: string): FileKind | undefined {
  const segments = path.split(/[\\/]/);
  const name = segments[segments.length - 1] ?? '';
  if (SIDECAR_NAME.test(name) || !YAML_NAME.test(name)) {
    return undefined;
  }
  const folders = segments.slice(0, -1);
  const project = folders.lastIndexOf('.relavium');
  const inProject = project !== -1 ? (folders[project + 1] ?? '') : undefined;
  if (inProject === 'agents') {
    return 'agent';
  }
  if (inProject === 'workflows') {
    return 'workflow';
  }
  if (AGENT_NAME.test(name)) {
    return 'agent';
  }
  return WORKFLOW_NAME.test(name) || inProject !== undefined ? 'workflow' : undefined;
}

/** A workflow file: what the sample-scope and dry-run commands take. */
export function isWorkflowPath(path: string): boolean {
  return fileKind(path) === 'workflow';
}
