// JSON string escaping as JSON.stringify does it, applied `depth` times (a value inside JSON text that
// is itself inside a JSON string needs two levels: tool-call arguments, `partial_json`).

/** The JSON string-literal content for `s` (no surrounding quotes). */
export function jsonEscape(s: string): string {
  const q = JSON.stringify(s);
  return q.slice(1, -1);
}

/** Escapes `s` `depth` times (0 returns `s`). */
export function jsonEscapeDepth(s: string, depth: number): string {
  let out = s;
  for (let i = 0; i < depth; i++) out = jsonEscape(out);
  return out;
}
