// The injection grammar run by vscode-textmate (the engine VS Code uses) over two YAML grammars:
// the one VS Code 1.100 ships (test/fixtures/vscode-1.100.3-yaml, see its NOTICE.md) and the
// TextMate YAML grammar from tm-grammars, each with tm-grammars' JavaScript grammar. Which text
// of a workflow becomes embedded JavaScript must not depend on which one the editor has.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import { INITIAL, Registry, parseRawGrammar, type IGrammar } from 'vscode-textmate';
import { EXAMPLE_WORKFLOW, PACKAGE_ROOT } from './paths';

const EMBEDDED = 'meta.embedded.expression.relavium';
const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'));
const injection = manifest.contributes.grammars[0];
const VSCODE_YAML = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'vscode-1.100.3-yaml');

/** scopeName → file, for every grammar in a directory. */
function grammarsIn(directory: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of fs.readdirSync(directory).filter((file) => file.endsWith('.json'))) {
    const file = path.join(directory, name);
    found[JSON.parse(fs.readFileSync(file, 'utf8')).scopeName] = file;
  }
  return found;
}

const YAML_GRAMMARS: Record<string, Record<string, string>> = {
  'VS Code 1.100 YAML': grammarsIn(VSCODE_YAML),
  'tm-grammars YAML': { 'source.yaml': require.resolve('tm-grammars/grammars/yaml.json') },
};

let onigLoaded: Promise<void> | undefined;

async function loadYaml(yamlGrammars: Record<string, string>): Promise<IGrammar> {
  onigLoaded ??= (async () => {
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(
      wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength),
    );
  })();
  await onigLoaded;
  const files: Record<string, string> = {
    ...yamlGrammars,
    'source.js': require.resolve('tm-grammars/grammars/javascript.json'),
    [injection.scopeName]: path.join(PACKAGE_ROOT, injection.path),
  };
  const registry = new Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => {
      const file = files[scopeName];
      return file === undefined ? null : parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
    // what `injectTo` in the manifest asks VS Code to do
    getInjections: (scopeName) =>
      injection.injectTo.includes(scopeName) ? [injection.scopeName] : undefined,
  });
  const loaded = await registry.loadGrammar('source.yaml');
  assert.ok(loaded !== null);
  return loaded;
}

interface Token {
  text: string;
  scopes: string[];
}

function tokenize(yaml: IGrammar, text: string): Token[][] {
  let state = INITIAL;
  return text.split('\n').map((line) => {
    const result = yaml.tokenizeLine(line, state);
    state = result.ruleStack;
    return result.tokens.map((token) => ({
      text: line.slice(token.startIndex, token.endIndex),
      scopes: token.scopes,
    }));
  });
}

/** Per line, the text tokenized as embedded JavaScript, trimmed; lines without any left out. */
function embeddedJavaScript(yaml: IGrammar, text: string): string[] {
  return tokenize(yaml, text)
    .map((tokens) =>
      tokens
        .filter((token) => token.scopes.includes(EMBEDDED))
        .map((token) => token.text)
        .join('')
        .trim(),
    )
    .filter((line) => line !== '');
}

for (const [grammarName, yamlGrammars] of Object.entries(YAML_GRAMMARS)) {
  describe(`with the ${grammarName} grammar`, () => {
    let yaml: IGrammar;

    before(async () => {
      yaml = await loadYaml(yamlGrammars);
    });

    test('the example workflow embeds exactly its five expressions', () => {
      assert.deepEqual(embeddedJavaScript(yaml, fs.readFileSync(EXAMPLE_WORKFLOW, 'utf8')), [
        'run.outputs["classify"].severity >= (inputs.severity_floor ?? 7)',
        '? "urgent"',
        ': "normal"',
        '({ topic: run.outputs.classify.topic, tier: inputs.customer_tier ?? "free" })',
        '({ mood: /refund|angry|cancel/i.test(inputs.ticket_text) ? "upset" : "calm" })',
        'Object.assign({}, ...branches, { team: ctx.team })',
        'run.outputs.classify.topic',
      ]);
    });

    test('the embedded text is highlighted by the JavaScript grammar', () => {
      const tokens = tokenize(
          yaml,
          '    - id: x\n      transform: |\n        inputs.n ?? "none"\n').flat();
      const scopesOf = (text: string): string[] =>
        tokens.find((token) => token.text.trim() === text)?.scopes ?? [];
      assert.ok(
        scopesOf('??').some((scope) => scope.startsWith('keyword.operator')),
        'no operator',
      );
      assert.ok(scopesOf('"').some((scope) => scope.startsWith('string.quoted.double.js')));
      assert.ok(scopesOf('inputs').includes('source.js'));
    });

    test('a block scalar after "- " ends at the next key of the same item', () => {
      const text = [
        '  - merge_fn: |',
        '      { ...branches[0],',
        '',
        '        ...branches[1] }',
        '    merge_strategy: custom',
        '  - expression: >-',
        '      x > 1',
        '  - id: next',
      ].join('\n');
      assert.deepEqual(embeddedJavaScript(yaml, text), [
        '{ ...branches[0],',
        '...branches[1] }',
        'x > 1',
      ]);
    });

    test('a half-typed expression does not leak past its block scalar', () => {
      const text = [
        '    - id: x',
        '      type: transform',
        '      transform: |',
        '        ({ open: [1, `unclosed',
        '      retry: { max: 2 }',
        '    - { id: y, type: input }',
      ].join('\n');
      assert.deepEqual(embeddedJavaScript(yaml, text), ['({ open: [1, `unclosed']);
    });

    test('plain and double-quoted one-liners embed their value, not a trailing comment', () => {
      const text = [
        '    expression: inputs.n > 2   # why',
        '    transform: "[1, 2].map((x) => x * 2)"',
        '    expression_type: js',
        '    label: "transform: not a field"',
        '    prompt_template: |',
        '      {{ run.outputs["x"] }} transform: no',
      ].join('\n');
      assert.deepEqual(embeddedJavaScript(yaml, text), [
        'inputs.n > 2',
        '[1, 2].map((x) => x * 2)',
      ]);
    });

    // Every scalar style a field can be written in, for each of the three fields.
    for (const field of ['expression', 'transform', 'merge_fn']) {
      const styles: [string, string[], string][] = [
        ['plain', [`    ${field}: run.outputs.a.n > 1`], 'run.outputs.a.n > 1'],
        ['single-quoted', [`    ${field}: 'run.outputs.a.n > 1'`], 'run.outputs.a.n > 1'],
        ['double-quoted', [`    ${field}: "run.outputs.a.n > 1"`], 'run.outputs.a.n > 1'],
        ['literal block', [`    ${field}: |`, '      run.outputs.a.n > 1'], 'run.outputs.a.n > 1'],
        ['folded block', [`    ${field}: >-`, '      run.outputs.a.n > 1'], 'run.outputs.a.n > 1'],
      ];
      for (const [style, lines, code] of styles) {
        test(`${field} as a ${style} scalar is JavaScript, and the next key is not`, () => {
          const text = ['  - id: x', ...lines, '    label: after'].join('\n');
          assert.deepEqual(embeddedJavaScript(yaml, text), [code]);
          const operator = tokenize(yaml, text)
            .flat()
            .find((token) => token.text.trim() === '>');
          assert.ok(operator?.scopes.includes('source.js'), `${style}: > is not JavaScript`);
          // the same field after the item's dash
          const [first = '', ...rest] = lines;
          const dashed = [first.replace(`    ${field}`, `  - ${field}`), ...rest, '    x: 1'];
          assert.deepEqual(embeddedJavaScript(yaml, dashed.join('\n')), [code]);
        });
      }
    }
  });
}
