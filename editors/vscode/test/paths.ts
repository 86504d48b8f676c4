// Paths the tests share; compiled to out/tests/test/, so the package root is three levels up.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..');
export const REPO_ROOT = path.resolve(PACKAGE_ROOT, '..', '..');
export const EXAMPLE_WORKFLOW = path.join(REPO_ROOT, 'examples', 'ticket-triage.relavium.yaml');
const EDITOR_FIXTURES = path.join(REPO_ROOT, 'editors', 'fixtures');

/**
 * A scratch copy of editors/fixtures (the samples sidecar included) outside the repository: the
 * repository's own configuration excludes its fixtures, and the server gives excluded files no
 * diagnostics (docs/server.md, "Which documents").
 */
export function scratchFixtures(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'relavium-fixtures-'));
  for (const name of fs.readdirSync(EDITOR_FIXTURES)) {
    fs.copyFileSync(path.join(EDITOR_FIXTURES, name), path.join(folder, name));
  }
  return folder;
}
