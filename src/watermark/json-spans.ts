// A byte-level JSON scanner that records where each value lies in the body, so the watermark can
// rewrite single strings and forward every other byte unchanged. Strings are skipped at indexOf speed.

export type JsonNode = JsonString | JsonObject | JsonArray | JsonScalar;

export interface JsonString {
  kind: 'string';
  /** Offset of the opening quote. */
  start: number;
  /** Offset just past the closing quote. */
  end: number;
  /** Whether the raw bytes hold any backslash escape. */
  escaped: boolean;
}

export interface JsonObject {
  kind: 'object';
  start: number;
  end: number;
  keys: string[];
  values: JsonNode[];
}

export interface JsonArray {
  kind: 'array';
  start: number;
  end: number;
  items: JsonNode[];
}

export interface JsonScalar {
  kind: 'scalar';
  start: number;
  end: number;
}

/** Deeper bodies are not scanned (and so not marked). */
const MAX_DEPTH = 128;

class Malformed extends Error {}

/** Scans `buf` as one JSON value; undefined when it is not well-formed enough to rewrite safely. */
export function scanJson(buf: Buffer): JsonNode | undefined {
  let pos = 0;
  let nextBackslash = buf.indexOf(0x5c);
  if (nextBackslash < 0) nextBackslash = buf.length;

  const skipWs = (): void => {
    while (pos < buf.length) {
      const c = buf[pos]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      pos++;
    }
  };

  const readString = (): JsonString => {
    const start = pos;
    let from = pos + 1;
    for (;;) {
      const q = buf.indexOf(0x22, from);
      if (q < 0) throw new Malformed();
      let run = 0;
      while (buf[q - 1 - run] === 0x5c && q - 1 - run > start) run++;
      if (run % 2 === 0) {
        while (nextBackslash < start) {
          nextBackslash = buf.indexOf(0x5c, nextBackslash + 1);
          if (nextBackslash < 0) nextBackslash = buf.length;
        }
        pos = q + 1;
        return { kind: 'string', start, end: pos, escaped: nextBackslash < q };
      }
      from = q + 1;
    }
  };

  const readValue = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) throw new Malformed();
    skipWs();
    const c = buf[pos];
    if (c === 0x22) return readString();
    const start = pos;
    if (c === 0x7b) {
      pos++;
      const keys: string[] = [];
      const values: JsonNode[] = [];
      skipWs();
      if (buf[pos] === 0x7d) {
        pos++;
        return { kind: 'object', start, end: pos, keys, values };
      }
      for (;;) {
        skipWs();
        if (buf[pos] !== 0x22) throw new Malformed();
        const key = readString();
        keys.push(key.escaped ? (JSON.parse(buf.toString('utf8', key.start, key.end)) as string) : buf.toString('utf8', key.start + 1, key.end - 1));
        skipWs();
        if (buf[pos] !== 0x3a) throw new Malformed();
        pos++;
        values.push(readValue(depth + 1));
        skipWs();
        const d = buf[pos++];
        if (d === 0x7d) return { kind: 'object', start, end: pos, keys, values };
        if (d !== 0x2c) throw new Malformed();
      }
    }
    if (c === 0x5b) {
      pos++;
      const items: JsonNode[] = [];
      skipWs();
      if (buf[pos] === 0x5d) {
        pos++;
        return { kind: 'array', start, end: pos, items };
      }
      for (;;) {
        items.push(readValue(depth + 1));
        skipWs();
        const d = buf[pos++];
        if (d === 0x5d) return { kind: 'array', start, end: pos, items };
        if (d !== 0x2c) throw new Malformed();
      }
    }
    // Numbers, true, false, null: up to the next delimiter.
    while (pos < buf.length) {
      const d = buf[pos]!;
      if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      pos++;
    }
    if (pos === start) throw new Malformed();
    return { kind: 'scalar', start, end: pos };
  };

  try {
    const root = readValue(0);
    skipWs();
    return pos === buf.length ? root : undefined;
  } catch (error) {
    if (error instanceof Malformed || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** The value under `key` in an object node. */
export function getKey(node: JsonNode | undefined, key: string): JsonNode | undefined {
  if (node === undefined || node.kind !== 'object') return undefined;
  const i = node.keys.indexOf(key);
  return i < 0 ? undefined : node.values[i];
}

/** Decodes a string node. */
export function decodeString(buf: Buffer, node: JsonString): string {
  return node.escaped ? (JSON.parse(buf.toString('utf8', node.start, node.end)) as string) : buf.toString('utf8', node.start + 1, node.end - 1);
}

/** Decodes a string node when it is one and short (for `type`/`role` tags); undefined otherwise. */
export function tagOf(buf: Buffer, node: JsonNode | undefined): string | undefined {
  if (node === undefined || node.kind !== 'string' || node.end - node.start > 66) return undefined;
  return decodeString(buf, node);
}
