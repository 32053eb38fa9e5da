// Reads a tool call's JSON arguments without JSON.parse: every string (keys included) decoded, with the
// property it belongs to, and each placeholder occurrence (a byte offset in the JSON text) mapped to its
// string and its offset in the decoded text. Iterative and linear, whatever the nesting.

/** One string of the arguments. */
export interface ArgString {
  /** Decoded text. */
  text: string;
  /** The top-level property it sits under ('' for the root itself). */
  top: string;
  /** The property whose value it is (or is inside of); for a key, the key itself. */
  parent: string;
  /** It is a property name. */
  isKey: boolean;
  /** Occurrences inside it: their index in the call's list and their UTF-16 offset in `text`. */
  occurrences: Array<{ index: number; at: number }>;
}

/** The strings of a call's arguments and the shape of its top level. */
export interface ParsedArguments {
  strings: ArgString[];
  /** Top-level property → the type of its value ('string', 'number', 'boolean', 'null', 'object', 'array'). */
  topTypes: Map<string, string>;
  /** The root value is an object. */
  rootIsObject: boolean;
}

interface Container {
  isObject: boolean;
  /** The current key (objects), while its value is read. */
  key: string;
  /** The property the container itself sits under (for arrays inside an object). */
  inherited: string;
  phase: 'key' | 'colon' | 'value' | 'comma';
  empty: boolean;
}

const WS = new Uint8Array(256);
for (const b of [0x20, 0x09, 0x0a, 0x0d]) WS[b] = 1;

/**
 * Parses JSON text; `occurrences` are ascending byte offsets (placeholders start with `~`, which JSON only
 * allows inside strings). Undefined when the text is not JSON or an occurrence is outside every string.
 */
export function parseJsonArguments(bytes: Buffer, occurrences: readonly number[]): ParsedArguments | undefined {
  const strings: ArgString[] = [];
  const topTypes = new Map<string, string>();
  const stack: Container[] = [];
  let nextOcc = 0;
  let i = 0;
  const n = bytes.length;
  let sawRoot = false;
  let rootIsObject = false;

  const parentOf = (c: Container | undefined): string => (c === undefined ? '' : c.isObject ? c.key : c.inherited);
  const topKey = (): string => (stack[0]?.isObject === true ? stack[0].key : '');
  const afterValue = (): void => {
    const top = stack[stack.length - 1];
    if (top === undefined) return;
    top.phase = 'comma';
    top.empty = false;
  };
  /** Reads one value at `i` (a container only opens; its members are read by the loop). */
  const value = (b: number): boolean => {
    if (stack.length === 1 && stack[0]?.isObject === true) {
      topTypes.set(stack[0].key, b === 0x7b ? 'object' : b === 0x5b ? 'array' : b === 0x22 ? 'string' : b === 0x74 || b === 0x66 ? 'boolean' : b === 0x6e ? 'null' : 'number');
    }
    if (b === 0x7b || b === 0x5b) {
      stack.push({ isObject: b === 0x7b, key: '', inherited: parentOf(stack[stack.length - 1]), phase: b === 0x7b ? 'key' : 'value', empty: true });
      i++;
      return true;
    }
    if (b === 0x22) {
      const s = readString(bytes, i, occurrences, nextOcc);
      if (s === undefined) return false;
      nextOcc = s.nextOcc;
      strings.push({ text: s.text, top: topKey(), parent: parentOf(stack[stack.length - 1]), isKey: false, occurrences: s.occurrences });
      i = s.end;
      afterValue();
      return true;
    }
    const start = i;
    while (i < n && isLiteralByte(bytes[i] as number)) i++;
    const lit = bytes.toString('latin1', start, i);
    if (!(lit === 'true' || lit === 'false' || lit === 'null' || /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(lit))) return false;
    afterValue();
    return true;
  };

  for (;;) {
    while (i < n && WS[bytes[i] as number] === 1) i++;
    if (i >= n) break;
    const b = bytes[i] as number;
    const top = stack[stack.length - 1];
    if (top === undefined) {
      if (sawRoot) return undefined;
      sawRoot = true;
      rootIsObject = b === 0x7b;
      if (!value(b)) return undefined;
      continue;
    }
    const closer = top.isObject ? 0x7d : 0x5d;
    switch (top.phase) {
      case 'key': {
        if (b === closer && top.empty) break;
        if (b !== 0x22) return undefined;
        const s = readString(bytes, i, occurrences, nextOcc);
        if (s === undefined) return undefined;
        nextOcc = s.nextOcc;
        top.key = s.text;
        strings.push({ text: s.text, top: stack.length === 1 ? s.text : topKey(), parent: s.text, isKey: true, occurrences: s.occurrences });
        i = s.end;
        top.phase = 'colon';
        continue;
      }
      case 'colon':
        if (b !== 0x3a) return undefined;
        i++;
        top.phase = 'value';
        continue;
      case 'value':
        if (b === closer && top.empty && !top.isObject) break;
        if (!value(b)) return undefined;
        continue;
      case 'comma':
        if (b === 0x2c) {
          i++;
          top.phase = top.isObject ? 'key' : 'value';
          top.empty = false;
          continue;
        }
        if (b !== closer) return undefined;
        break;
    }
    // The container closes.
    if (b !== closer) return undefined;
    stack.pop();
    i++;
    afterValue();
  }
  if (stack.length > 0 || !sawRoot || nextOcc < occurrences.length) return undefined;
  return { strings, topTypes, rootIsObject };
}

function isLiteralByte(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x45;
}

/**
 * Decodes the JSON string starting at `start` (its opening quote). Occurrence offsets from `first` on that
 * fall inside it are mapped to offsets in the decoded text.
 */
function readString(bytes: Buffer, start: number, occ: readonly number[], first: number): { text: string; end: number; nextOcc: number; occurrences: Array<{ index: number; at: number }> } | undefined {
  const parts: string[] = [];
  let length = 0;
  let k = first;
  const occurrences: Array<{ index: number; at: number }> = [];
  let runStart = start + 1;
  let i = start + 1;
  const n = bytes.length;
  const flush = (to: number): void => {
    if (to > runStart) {
      const s = bytes.toString('utf8', runStart, to);
      parts.push(s);
      length += s.length;
    }
  };
  if ((occ[k] ?? Infinity) <= start) return undefined;
  while (i < n) {
    const b = bytes[i] as number;
    if (i === occ[k]) {
      // Split the raw run here so the offset in decoded text is exact (placeholders are never escaped).
      flush(i);
      runStart = i;
      occurrences.push({ index: k, at: length });
      k++;
    }
    if (b === 0x22) {
      flush(i);
      return { text: parts.join(''), end: i + 1, nextOcc: k, occurrences };
    }
    if (b < 0x20) return undefined;
    if (b !== 0x5c) {
      i++;
      continue;
    }
    flush(i);
    const e = bytes[i + 1];
    let ch: string;
    let len = 2;
    switch (e) {
      case 0x22: ch = '"'; break;
      case 0x5c: ch = '\\'; break;
      case 0x2f: ch = '/'; break;
      case 0x62: ch = '\b'; break;
      case 0x66: ch = '\f'; break;
      case 0x6e: ch = '\n'; break;
      case 0x72: ch = '\r'; break;
      case 0x74: ch = '\t'; break;
      case 0x75: {
        const hex = bytes.toString('latin1', i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
        ch = String.fromCharCode(Number.parseInt(hex, 16));
        len = 6;
        break;
      }
      default:
        return undefined;
    }
    // An occurrence offset inside an escape cannot be a placeholder start.
    if ((occ[k] ?? Infinity) < i + len && (occ[k] as number) > i) return undefined;
    parts.push(ch);
    length += ch.length;
    i += len;
    runStart = i;
  }
  return undefined;
}
