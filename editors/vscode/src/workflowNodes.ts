// Finds the workflow node under the cursor and the nodes that carry an expression, so "Run with
// sample scope" knows which `node` to send. Free of `vscode`; offsets are UTF-16 string indices,
// the same unit as `TextDocument.offsetAt`.

import { isMap, isScalar, isSeq, parseDocument, type YAMLMap } from 'yaml';

/** The field holding each node type's JavaScript (the sandbox spec's "What runs here"). */
export const EXPRESSION_FIELDS: Readonly<Record<string, string>> = {
  condition: 'expression',
  transform: 'transform',
  merge: 'merge_fn',
};

export interface WorkflowNode {
  id: string;
  type: string | undefined;
  /** The expression field this node carries, if any. */
  expressionField: string | undefined;
  /** [start, end) of the node's mapping in the text. */
  start: number;
  end: number;
}

/** Every node of `workflow.nodes` that has a string id, in authored order. */
export function workflowNodes(text: string): WorkflowNode[] {
  // Only the syntax tree is read, never `toJS()`, so aliases are not expanded: a billion-laughs
  // file stays cheap. Duplicate keys are the server's to report, not a reason to find nothing.
  const document = parseDocument(text, { version: '1.2', uniqueKeys: false });
  const nodes = document.getIn(['workflow', 'nodes'], true);
  if (!isSeq(nodes)) {
    return [];
  }
  const found: WorkflowNode[] = [];
  for (const item of nodes.items) {
    if (!isMap(item) || item.range === undefined || item.range === null) {
      continue;
    }
    const id = stringValue(item, 'id');
    if (id === undefined) {
      continue;
    }
    const type = stringValue(item, 'type');
    const field = type === undefined ? undefined : EXPRESSION_FIELDS[type];
    const expressionField = field !== undefined && item.has(field) ? field : undefined;
    found.push({ id, type, expressionField, start: item.range[0], end: item.range[2] });
  }
  return found;
}

/** The node whose mapping contains `offset`, if any. */
export function nodeAtOffset(text: string, offset: number): WorkflowNode | undefined {
  return workflowNodes(text).find((node) => node.start <= offset && offset <= node.end);
}

function stringValue(map: YAMLMap, key: string): string | undefined {
  const value = map.get(key, true);
  return isScalar(value) && typeof value.value === 'string' ? value.value : undefined;
}
