// Redaction of the request target: each path segment and each query parameter is percent-decoded,
// inspected, and — only when it holds a registered value — rewritten; other bytes are kept as sent.

import { inspect, selectHits } from './inspect.ts';
import { replaceHits, type CountMap } from './replace.ts';
import type { SecretSet } from './secret-set.ts';

/** Decodes percent-escapes (and `+` as space when `plus`), keeping malformed escapes as they are. */
export function percentDecode(s: string, plus: boolean): string {
  const t = plus ? s.replace(/\+/g, ' ') : s;
  if (!t.includes('%')) return t;
  try {
    return decodeURIComponent(t);
  } catch {
    return t.replace(/(%[0-9a-fA-F]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}

/** Redacts one percent-encoded component, decoded first; returns undefined when it holds no registered value. */
export function redactComponent(set: SecretSet, raw: string, plus: boolean, counts: CountMap): string | undefined {
  const decoded = percentDecode(raw, plus);
  const decodedOut = replaceInText(set, decoded, counts);
  if (decodedOut !== undefined) return encodeURIComponent(decodedOut);
  // A value only visible undecoded (e.g. holding `+` or a malformed escape): replace it where it stands.
  return decoded === raw ? undefined : replaceInText(set, raw, counts);
}

/** Replaces every registered value in `text` (whose bytes are `encoding`); undefined when there is none. */
export function replaceInText(set: SecretSet, text: string, counts: CountMap, encoding: BufferEncoding = 'utf8'): string | undefined {
  const buf = Buffer.from(text, encoding);
  const hits = selectHits(inspect(set, buf, 'text'));
  if (hits.length === 0) return undefined;
  return replaceHits(set, buf, hits, counts).toString(encoding);
}

/** Redacts `a=b&c=d` text (a query string or a form body); returns the input when nothing matched. */
export function redactQueryString(set: SecretSet, query: string, counts: CountMap): string {
  if (set.inert || query === '') return query;
  const parts = query.split('&');
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const eq = part.indexOf('=');
    const name = eq === -1 ? part : part.slice(0, eq);
    const value = eq === -1 ? undefined : part.slice(eq + 1);
    const newName = redactComponent(set, name, true, counts);
    const newValue = value === undefined ? undefined : redactComponent(set, value, true, counts);
    if (newName !== undefined || newValue !== undefined) {
      changed = true;
      parts[i] = (newName ?? name) + (value === undefined ? '' : `=${newValue ?? value}`);
    }
  }
  return changed ? parts.join('&') : query;
}

/** Redacts a path (`/a/b`), segment by segment. */
export function redactPath(set: SecretSet, path: string, counts: CountMap): string {
  if (set.inert) return path;
  const segments = path.split('/');
  let changed = false;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as string;
    if (seg === '') continue;
    const next = redactComponent(set, seg, false, counts);
    if (next !== undefined) {
      segments[i] = next;
      changed = true;
    }
  }
  return changed ? segments.join('/') : path;
}

/** Redacts a request target `path?query`. */
export function redactTarget(set: SecretSet, target: string, counts: CountMap): string {
  const q = target.indexOf('?');
  if (q === -1) return redactPath(set, target, counts);
  return `${redactPath(set, target.slice(0, q), counts)}?${redactQueryString(set, target.slice(q + 1), counts)}`;
}

/** Every decoded component of a request target, for the gate. */
export function targetComponents(target: string): Array<{ surface: 'path' | 'query'; text: string }> {
  const out: Array<{ surface: 'path' | 'query'; text: string }> = [];
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  for (const seg of path.split('/')) if (seg !== '') out.push({ surface: 'path', text: percentDecode(seg, false) });
  if (q !== -1) {
    for (const part of target.slice(q + 1).split('&')) {
      if (part === '') continue;
      out.push({ surface: 'query', text: percentDecode(part, true) });
    }
  }
  return out;
}
