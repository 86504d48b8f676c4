// Which files are Relavium workflows. Kept free of `vscode` so `node --test` can check it; the
// globs here are the ones the manifest and the language client use.

/** Globs (relative to any folder) the server serves; the manifest repeats them. */
export const WORKFLOW_GLOBS = [
  '**/*.relavium.yaml',
  '**/*.relavium.yml',
  '**/.relavium/**/*.yaml',
  '**/.relavium/**/*.yml',
] as const;

/** The language client's document selector: workflow YAML on disk and in unsaved editors. */
export const DOCUMENT_SELECTOR = WORKFLOW_GLOBS.flatMap((pattern) => [
  { scheme: 'file', language: 'yaml', pattern },
  { scheme: 'untitled', language: 'yaml', pattern },
]);

const WORKFLOW_NAME = /\.relavium\.ya?ml$/;
const YAML_NAME = /\.ya?ml$/;

/** True for `*.relavium.yaml|yml` anywhere and any YAML file below a `.relavium/` folder. */
export function isWorkflowPath(path: string): boolean {
  const segments = path.split(/[\\/]/);
  const name = segments[segments.length - 1] ?? '';
  if (WORKFLOW_NAME.test(name)) {
    return true;
  }
  return YAML_NAME.test(name) && segments.slice(0, -1).includes('.relavium');
}
