// Vault names suggested for findings: the variable or key the value is assigned to on its line
// (`GITHUB_TOKEN=…`, `"apiKey": "…"`, `password: …`), else one made from the kind; the same value keeps
// one name, and different values never share one.

const ASSIGNED = /([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*(?::=|=|:|=>)\s*["'`]?\s*$/;

/**
 * The name a credential at `start` of `text` is assigned to on its line, if any. A URL's password is named
 * after what the URL is assigned to (`DATABASE_URL=postgres://app:…`), not after its user.
 */
export function assignedName(text: string, start: number, kind = ''): string | undefined {
  if (kind === 'url-password') {
    const sep = text.lastIndexOf('://', start);
    if (sep !== -1) {
      let s = sep;
      while (s > 0 && /[A-Za-z0-9+.-]/.test(text[s - 1]!)) s--;
      start = s;
    }
  }
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const before = text.slice(Math.max(lineStart, start - 200), start);
  const m = ASSIGNED.exec(before);
  return m === null ? undefined : m[1];
}

/** A vault name (letters, digits, `_`; upper case) from a variable name or a kind. */
export function toVaultName(raw: string): string {
  const name = raw
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return /^[A-Z_]/.test(name) ? name : `SECRET_${name}`;
}

/** Hands out names: one per value, never one name for two values. */
export function createNamer(): (value: string, wanted: string) => string {
  const byValue = new Map<string, string>();
  const taken = new Set<string>();
  return (value, wanted) => {
    const known = byValue.get(value);
    if (known !== undefined) return known;
    let name = wanted;
    for (let n = 2; taken.has(name); n++) name = `${wanted}_${n}`;
    taken.add(name);
    byValue.set(value, name);
    return name;
  };
}
