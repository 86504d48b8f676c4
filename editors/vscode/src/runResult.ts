// Turns the result of the server command `relavium.runWithSampleScope` (the sandbox `eval` JSON
// shape plus the scope used) into a one-line notification and a detailed output-channel entry.
// Free of `vscode`. Never renders `error.detail`: the sandbox spec keeps it private.

export interface RunReport {
  ok: boolean;
  /** One line for the notification. */
  summary: string;
  /** Several lines for the output channel. */
  detail: string;
}

const PREVIEW_LIMIT = 120;

export function describeRunResult(node: string, result: unknown): RunReport {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    return {
      ok: false,
      summary: `Run of "${node}" returned no result (got ${JSON.stringify(result) ?? 'nothing'}).`,
      detail: `run ${node}: the server answered ${JSON.stringify(result) ?? 'nothing'}`,
    };
  }
  const record = result as Record<string, unknown>;
  const scope = describeScope(record.scope);
  const lines = [`run ${node}${scope === undefined ? '' : ` with ${scope}`}`];
  if (record.ok === true) {
    // JSON has no NaN, ±Infinity or -0: the eval shape sends `"value": null` plus `"number"`.
    const special = typeof record.number === 'string' ? record.number : undefined;
    const value = special ?? JSON.stringify(record.value, null, 2) ?? String(record.value);
    lines.push(`value: ${value}`);
    const oneLine = special ?? JSON.stringify(record.value) ?? String(record.value);
    return { ok: true, summary: `${node} → ${preview(oneLine)}`, detail: lines.join('\n') };
  }
  const error = asRecord(record.error);
  const reason = typeof error.reason === 'string' ? error.reason : 'unknown reason';
  const message = typeof error.message === 'string' ? error.message : 'no message';
  const retryable = error.retryable === true ? ' (retryable)' : '';
  lines.push(`error: ${String(error.code ?? 'sandbox_error')} ${reason}${retryable}: ${message}`);
  return { ok: false, summary: `${node} failed: ${reason} — ${message}`, detail: lines.join('\n') };
}

/** The scope's provenance as the server reports it: a path, a kind, or both. */
function describeScope(scope: unknown): string | undefined {
  if (typeof scope === 'string') {
    return scope;
  }
  const record = asRecord(scope);
  const parts = [record.source, record.kind, record.path].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  );
  return parts.length > 0 ? `scope ${parts.join(' ')}` : undefined;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function preview(text: string): string {
  return text.length <= PREVIEW_LIMIT ? text : `${text.slice(0, PREVIEW_LIMIT - 1)}…`;
}
