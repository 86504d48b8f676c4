// Paths the tests share; compiled to out/tests/test/, so the package root is three levels up.
import * as path from 'node:path';

export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..');
export const REPO_ROOT = path.resolve(PACKAGE_ROOT, '..', '..');
export const EXAMPLE_WORKFLOW = path.join(REPO_ROOT, 'examples', 'ticket-triage.relavium.yaml');
export const FIXTURES = path.join(REPO_ROOT, 'editors', 'fixtures');
