// The readable log format: one short line per event, a request as `time method route status ms counts`,
// coloured (ANSI) when it goes to a terminal. Built from the same fields as the JSON line, so it can
// never show more than the JSON line does.

const RESET = '\u001b[0m';
const COLORS = { dim: '\u001b[2m', bold: '\u001b[1m', red: '\u001b[31m', green: '\u001b[32m', yellow: '\u001b[33m', cyan: '\u001b[36m' } as const;
type Color = keyof typeof COLORS;

/** Fields every line carries, not repeated as key=value. */
const HEAD_FIELDS = new Set(['time', 'level', 'event', 'msg', 'name', 'pid', 'hostname']);

/** One readable line (with a trailing newline) for a parsed JSON log line. */
export function formatHumanLine(obj: Record<string, unknown>, color: boolean): string {
  const paint = (c: Color, s: string): string => (color ? `${COLORS[c]}${s}${RESET}` : s);
  const time = typeof obj.time === 'string' ? obj.time.slice(11, 19) : '';
  const level = String(obj.level ?? 'info');
  if (obj.event === 'request') return `${paint('dim', time)}  ${formatRequest(obj, paint)}\n`;
  const label = level.toUpperCase().padEnd(5);
  const levelText = level === 'error' || level === 'fatal' ? paint('red', label) : level === 'warn' ? paint('yellow', label) : paint('dim', label);
  const fields = Object.entries(obj)
    .filter(([k, v]) => !HEAD_FIELDS.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${plain(v)}`);
  const msg = typeof obj.msg === 'string' ? `  ${obj.msg}` : '';
  return `${paint('dim', time)}  ${levelText} ${String(obj.event ?? '')}${msg}${fields.length > 0 ? paint('dim', `  ${fields.join(' ')}`) : ''}\n`;
}

function formatRequest(o: Record<string, unknown>, paint: (c: Color, s: string) => string): string {
  const status = typeof o.status === 'number' ? o.status : undefined;
  const outcome = String(o.outcome ?? 'ok');
  const statusColor: Color = status === undefined || status >= 500 ? 'red' : status >= 400 ? 'yellow' : status >= 300 ? 'cyan' : 'green';
  const parts = [paint('bold', String(o.method ?? '')), String(o.route ?? ''), paint(statusColor, status === undefined ? '---' : String(status))];
  if (outcome !== 'ok') parts.push(paint(outcome === 'client_aborted' ? 'yellow' : 'red', outcome));
  if (typeof o.ms === 'number') parts.push(`${Math.round(o.ms)} ms`);
  const redacted = counts(o.redactions);
  const restored = counts(o.restores);
  if (redacted !== '') parts.push(`redacted ${redacted}`);
  if (restored !== '') parts.push(`restored ${restored}`);
  if (typeof o.restoreMisses === 'number' && o.restoreMisses > 0) parts.push(paint('yellow', `${o.restoreMisses} restore miss${o.restoreMisses === 1 ? '' : 'es'}`));
  if (Array.isArray(o.blocked) && o.blocked.length > 0) {
    parts.push(paint('red', `blocked: ${o.blocked.map((f) => (typeof f === 'object' && f !== null ? `${String((f as Record<string, unknown>).secret)} in ${String((f as Record<string, unknown>).surface)}` : String(f))).join(', ')}`));
  }
  if (typeof o.upstream === 'string') parts.push(o.upstream);
  if (typeof o.error === 'string') parts.push(paint('red', o.error));
  return parts.join('  ');
}

/** `3 (GITHUB_TOKEN 2, DB_URL 1)`; only the total when there are many names. */
function counts(v: unknown): string {
  if (typeof v !== 'object' || v === null) return '';
  const entries = Object.entries(v as Record<string, number>);
  if (entries.length === 0) return '';
  const total = entries.reduce((n, [, c]) => n + c, 0);
  return entries.length > 3 ? String(total) : `${total} (${entries.map(([k, c]) => `${k} ${c}`).join(', ')})`;
}

function plain(v: unknown): string {
  return typeof v === 'string' && /^[\w./:@-]*$/.test(v) ? v : JSON.stringify(v);
}
