// The injection grammar's regexes, run line by line the way a TextMate engine applies a
// begin/end rule: which lines of a workflow become embedded JavaScript. (The YAML and JavaScript
// grammars themselves ship with VS Code, so only the injection's own logic is checked here.)
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { EXAMPLE_WORKFLOW, PACKAGE_ROOT } from './paths';

interface Rule {
  begin?: string;
  end?: string;
  match?: string;
  captures?: Record<string, { name: string }>;
}

const grammar = JSON.parse(
  fs.readFileSync(
    path.join(PACKAGE_ROOT, 'syntaxes', 'relavium-expression.injection.tmLanguage.json'),
    'utf8',
  ),
);
const rules: Rule[] = grammar.patterns.map(
  (pattern: { include: string }) => grammar.repository[pattern.include.slice(1)],
);
const EMBEDDED = 'meta.embedded.expression.relavium';

/** The JavaScript text the grammar embeds, one entry per embedded line or span. */
function embeddedJavaScript(text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    for (const rule of rules) {
      if (rule.match !== undefined) {
        const match = new RegExp(rule.match).exec(line);
        const group = Object.entries(rule.captures ?? {}).find(([, c]) => c.name.startsWith(EMBEDDED));
        if (match !== null && group !== undefined) {
          found.push(match[Number(group[0])] ?? '');
          break;
        }
        continue;
      }
      const begin = new RegExp(rule.begin ?? '').exec(line);
      if (begin === null) {
        continue;
      }
      const endSource = (rule.end ?? '').replace(/\\(\d)/g, (_, n: string) =>
        (begin[Number(n)] ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      );
      const rest = line.slice(begin.index + begin[0].length);
      const sameLineEnd = new RegExp(endSource).exec(rest);
      if (rule.end?.startsWith('^') !== true && sameLineEnd !== null) {
        found.push(rest.slice(0, sameLineEnd.index)); // a quoted scalar closed on its own line
        break;
      }
      while (index + 1 < lines.length && !new RegExp(endSource).test(lines[index + 1] ?? '')) {
        index += 1;
        found.push((lines[index] ?? '').trim());
      }
      break;
    }
  }
  return found.filter((each) => each !== '');
}

test('the example workflow embeds exactly its four expressions', () => {
  assert.deepEqual(embeddedJavaScript(fs.readFileSync(EXAMPLE_WORKFLOW, 'utf8')), [
    'run.outputs["classify"].severity >= (inputs.severity_floor ?? 7)',
    '? "urgent"',
    ': "normal"',
    '({ topic: run.outputs.classify.topic, tier: inputs.customer_tier ?? "free" })',
    '({ mood: /refund|angry|cancel/i.test(inputs.ticket_text) ? "upset" : "calm" })',
    'Object.assign({}, ...branches, { team: ctx.team })',
  ]);
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
  assert.deepEqual(embeddedJavaScript(text), [
    '{ ...branches[0],',
    '...branches[1] }',
    'x > 1',
  ]);
});

test('plain and double-quoted one-liners embed their value, not a trailing comment', () => {
  const text = [
    '    expression: inputs.n > 2   # why',
    '    transform: "[1, 2].map((x) => x * 2)"',
    '    expression_type: js',
    '    label: transform: not a field',
  ].join('\n');
  assert.deepEqual(embeddedJavaScript(text), ['inputs.n > 2', '[1, 2].map((x) => x * 2)']);
});
