// Builds the renderer into ONE IIFE bundle (global `RelaviumGraph`) where the Python package
// ships it; `--check` builds in memory and fails when the committed bundle differs.
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const OUT = here("../../analysis/ide/graph_assets/relavium-graph.js");
const checking = process.argv.includes("--check");

const result = await build({
  entryPoints: [here("src/index.js")],
  bundle: true,
  format: "iife",
  globalName: "RelaviumGraph",
  minify: true,
  target: "es2020",
  legalComments: "none",
  banner: {
    js: "/* Relavium workflow graph renderer. Bundles @dagrejs/dagre and @dagrejs/graphlib " +
      "(MIT): see THIRD_PARTY_NOTICES.txt beside this file. */",
  },
  write: false,
  logLevel: "warning",
});
const built = result.outputFiles[0].text;
if (checking) {
  let committed = "";
  try {
    committed = readFileSync(OUT, "utf8");
  } catch {
    // absent: reported below like any difference
  }
  if (committed !== built) {
    console.error(`${OUT} is not what editors/graph builds: run \`npm run build\` in editors/graph`);
    process.exit(1);
  }
} else {
  writeFileSync(OUT, built);
}
