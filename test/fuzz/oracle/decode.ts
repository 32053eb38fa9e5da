// The oracle's decoders, written for the fuzz suite alone (nothing from src/redact or src/restore):
// JSON string escapes (lenient over any text, or strict for one string's content) and percent-encoding.
// They work on JavaScript strings, so surrogate pairs written as two `\u` escapes join up and a lone
// surrogate stays exactly what it was.

const SIMPLE: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function hex4(s: string, i: number): number {
  if (i + 4 > s.length) return -1;
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = s.charCodeAt(i + k);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

/**
 * Decodes every JSON escape in `s`, left to right, whatever surrounds it (structure, prose, other
 * strings). An invalid escape is kept as written. One call peels one level of escaping.
 */
export function unescapeLenient(s: string): string {
  let i = s.indexOf('\\');
  if (i === -1) return s;
  const parts: string[] = [];
  let from = 0;
  while (i !== -1) {
    const e = s[i + 1];
    let out: string | undefined;
    let len = 2;
    if (e !== undefined && SIMPLE[e] !== undefined) out = SIMPLE[e];
    else if (e === 'u') {
      const v = hex4(s, i + 2);
      if (v >= 0) {
        out = String.fromCharCode(v);
        len = 6;
      }
    }
    if (out === undefined) {
      i = s.indexOf('\\', i + 1);
      continue;
    }
    parts.push(s.slice(from, i), out);
    from = i + len;
    i = s.indexOf('\\', from);
  }
  parts.push(s.slice(from));
  return parts.join('');
}

/**
 * Decodes the content of one JSON string literal (without its quotes), or undefined when it is not
 * valid content: an unescaped quote or control character, or an invalid escape.
 */
export function unescapeStrict(s: string): string | undefined {
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c < 0x20) return undefined;
    if (c !== 0x5c) continue;
    const e = s[i + 1];
    parts.push(s.slice(from, i));
    if (e !== undefined && SIMPLE[e] !== undefined) {
      parts.push(SIMPLE[e] as string);
      i += 1;
    } else if (e === 'u') {
      const v = hex4(s, i + 2);
      if (v < 0) return undefined;
      parts.push(String.fromCharCode(v));
      i += 5;
    } else return undefined;
    from = i + 1;
  }
  parts.push(s.slice(from));
  return parts.join('');
}

/** `unescapeStrict` applied `depth` times, or undefined as soon as one level is not valid content. */
export function unescapeDepth(s: string, depth: number): string | undefined {
  let out: string | undefined = s;
  for (let d = 0; d < depth && out !== undefined; d++) out = unescapeStrict(out);
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Decodes `%XX` runs as UTF-8 (and `+` as a space when `plus`); malformed escapes stay as written,
 * invalid UTF-8 becomes U+FFFD. Characters that are not escapes are kept.
 */
export function percentDecode(s: string, plus: boolean): string {
  if (!s.includes('%') && !(plus && s.includes('+'))) return s;
  const parts: string[] = [];
  let from = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 0x25 && hex2(s, i + 1) >= 0) {
      parts.push(s.slice(from, i));
      const bytes: number[] = [];
      while (s.charCodeAt(i) === 0x25 && hex2(s, i + 1) >= 0) {
        bytes.push(hex2(s, i + 1));
        i += 3;
      }
      parts.push(utf8.decode(Uint8Array.from(bytes)));
      from = i;
      continue;
    }
    if (plus && c === 0x2b) {
      parts.push(s.slice(from, i), ' ');
      from = i + 1;
    }
    i++;
  }
  parts.push(s.slice(from));
  return parts.join('');
}

function hex2(s: string, i: number): number {
  const a = hexDigit(s.charCodeAt(i));
  const b = hexDigit(s.charCodeAt(i + 1));
  return a < 0 || b < 0 ? -1 : a * 16 + b;
}

function hexDigit(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;
}

/** Bytes read as UTF-8 the way a provider would (invalid sequences become U+FFFD). */
export function utf8Text(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}
