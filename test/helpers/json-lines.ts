// Checks a JSON line the way a strict reader would: it parses, and no object in it repeats a key
// (JSON.parse silently keeps the last one, which is how `"name":"ficta",…,"name":"DEBUG"` went unseen).

/** The keys repeated within one object anywhere in `text` (a valid JSON document); [] when none. */
export function duplicateKeys(text: string): string[] {
  const dups: string[] = [];
  // One set of keys per open object; undefined for an open array.
  const stack: Array<Set<string> | undefined> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(undefined);
      expectKey = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = stack.at(-1) !== undefined;
    } else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        const keys = stack.at(-1) as Set<string>;
        if (keys.has(key)) dups.push(key);
        keys.add(key);
        expectKey = false;
      }
      i = j;
    }
  }
  return dups;
}

/** Every non-empty line of `stderr` that is not one parseable JSON object with unique keys. */
export function badJsonLines(stderr: string): string[] {
  const bad: string[] = [];
  for (const line of stderr.split('\n')) {
    if (line === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (typeof v !== 'object' || v === null || Array.isArray(v) || duplicateKeys(line).length > 0) bad.push(line);
    } catch {
      bad.push(line);
    }
  }
  return bad;
}
