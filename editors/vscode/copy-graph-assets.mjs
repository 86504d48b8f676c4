// Before the bundle is built: the graph view's files into out/graph/, where the webview loads
// them from — the one renderer `relavium-lsp graph --format html` inlines (built from
// editors/graph/ and committed with the Python package, with its licence notice) and the page's
// own script and stylesheet (media/).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const renderer = join(here, '..', '..', 'analysis', 'ide', 'graph_assets');
const target = join(here, 'out', 'graph');
const files = [
  [renderer, 'relavium-graph.js'],
  [renderer, 'THIRD_PARTY_NOTICES.txt'],
  [join(here, 'media'), 'graphPage.js'],
  [join(here, 'media'), 'graphPage.css'],
];

mkdirSync(target, { recursive: true });
for (const [folder, name] of files) {
  const source = join(folder, name);
  if (!existsSync(source)) {
    console.error(`copy-graph-assets: ${source} is missing (editors/graph/: npm ci && npm run build)`);
    process.exit(1);
  }
  copyFileSync(source, join(target, name));
}
