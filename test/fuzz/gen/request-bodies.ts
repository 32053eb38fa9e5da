// Request generator classes by body kind: JSON (escape mixes, escape-building, nesting to 8 levels,
// values as numbers), JSONL, text, form, multipart with typed parts, binary, percent-encoded values in
// bodies, values registered through a dotenv file with repeated names, and bodies with very many hits.

import type { RequestCase } from '../harness/request-case.ts';
import type { Rng } from '../rng.ts';
import { multipart, percentEncode, type Part, type PercentMode } from './encodings.ts';
import { PLAIN_STYLE, PYTHON_STYLE, writeJson, type JNode, type StringStyle, type WriteOptions } from './json-writer.ts';
import { baseCase, registerByEnvFile, withBody } from './request-base.ts';
import { prose, requestDoc } from './request-doc.ts';
import { digitValue } from './values.ts';

/** A request case generator: seed → case. */
export type RequestGen = (rng: Rng) => RequestCase;

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', undefined, 'text/plain'] as const;

function randomStyle(rng: Rng): StringStyle {
  return {
    unicodeShare: rng.pick([0, 0.1, 0.5, 1]),
    hex: rng.pick(['lower', 'upper', 'mixed'] as const),
    slashShare: rng.pick([0, 0.5, 1]),
    asciiOnly: rng.chance(0.4),
    longFormShare: rng.pick([0, 0.5, 1]),
  };
}

function jsonBody(rng: Rng, values: readonly string[], depth: number, styles: StringStyle[], keyShare = 0.2): Buffer {
  const options: WriteOptions = { styles, spacing: rng.pick(['compact', 'python', 'random'] as const) };
  return Buffer.from(writeJson(rng, requestDoc(rng, { values, depth, keyShare }), options), 'utf8');
}

function jsonCase(rng: Rng, depth: number, styles: (rng: Rng) => StringStyle[]): RequestCase {
  const c = baseCase(rng);
  return withBody(c, jsonBody(rng, c.values, depth, styles(rng)), rng.pick(JSON_TYPES), 'json');
}

/** JSON written as SDKs write it, values up to three string levels deep. */
export const jsonPlain: RequestGen = (rng) => jsonCase(rng, rng.int(1, 3), () => [PLAIN_STYLE]);

/** One string level, every `\u` mix: upper/lower/mixed hex, surrogate pairs, `\/`, long forms, ensure_ascii. */
export const jsonEscapes: RequestGen = (rng) => jsonCase(rng, 1, (r) => [randomStyle(r)]);

/**
 * Two or three levels with escapes at every level, so inner escapes are themselves escaped: the outer
 * level writes each backslash as `\u005c` (and sometimes `u` and hex digits as escapes too), inner
 * levels escape some of the value's characters (`\u005c` + `u0073` = `s`). Half the cases use
 * ASCII tokens, whose characters are never a reason to decode a `\u005c`.
 */
export const jsonEscapeBuilding: RequestGen = (rng) => {
  const c = baseCase(rng, { plainShare: rng.pick([0.35, 1]) });
  const outer: StringStyle = { unicodeShare: rng.pick([0, 0, 0.3]), hex: rng.pick(['lower', 'upper', 'mixed'] as const), slashShare: 0, asciiOnly: false, longFormShare: 1 };
  const inner = (): StringStyle => ({ ...randomStyle(rng), unicodeShare: rng.pick([0.3, 0.7, 1]) });
  return withBody(c, jsonBody(rng, c.values, rng.int(2, 3), [outer, inner(), inner()]), rng.pick(JSON_TYPES), 'json');
};

/** JSON text nested in strings two or three levels deep, plain escapes. */
export const jsonNesting: RequestGen = (rng) => jsonCase(rng, rng.int(2, 3), () => [PLAIN_STYLE]);

/** Four to eight levels deep. */
export const jsonNestingDeep: RequestGen = (rng) => jsonCase(rng, rng.int(4, 8), () => [PLAIN_STYLE]);

/** A digits-only value written as a JSON number: it cannot be replaced, so the gate must refuse. */
export const jsonNumber: RequestGen = (rng) => {
  const c = baseCase(rng, {}, 1);
  const v = digitValue(rng);
  c.values.push(v);
  c.register = { kind: 'source', entries: c.values.map((value, i) => ({ name: `FUZZ_SECRET_${i + 1}`, value })) };
  const body = `{"model":"gpt-x","n":${rng.chance(0.5) ? v : `[1,${v},2]`},"messages":[{"role":"user","content":"hi"}]}`;
  return withBody(c, Buffer.from(body), 'application/json', 'json');
};

/** JSONL batch files as Python writes them (ensure_ascii, `, ` and `: `), values one string level deep. */
export const jsonl: RequestGen = (rng) => {
  const c = baseCase(rng);
  const lines: string[] = [];
  const n = rng.int(1, 5);
  for (let i = 0; i < n; i++) {
    const doc = requestDoc(rng, { values: c.values, depth: 1, keyShare: 0.1 });
    lines.push(writeJson(rng, { t: 'obj', entries: [['custom_id', { t: 'str', s: `r${i}` }], ['method', { t: 'str', s: 'POST' }], ['body', doc]] }, { styles: [PYTHON_STYLE], spacing: 'python' }));
  }
  const type = rng.pick(['application/jsonl', 'application/x-ndjson', 'application/jsonlines']);
  return withBody(c, Buffer.from(lines.join('\n') + (rng.chance(0.5) ? '\n' : ''), 'utf8'), type, 'jsonl');
};

/** Python's json.dumps of JSON text holding a value with astral characters (surrogate pairs escaped at depth 2-3). */
export const jsonAsciiNested: RequestGen = (rng) => {
  const c = baseCase(rng, { plainShare: rng.pick([0, 1]) });
  // Provider-like tokens with an emoji in them are the sharpest case: every other character is ASCII.
  c.values = c.values.map((v) => (/[\u{10000}-\u{10ffff}]/u.test(v) ? v : `${v.slice(0, 6)}${rng.pick(['🔑', '😀', '𝄞'])}${v.slice(6)}`));
  c.register = { kind: 'source', entries: c.values.map((value, i) => ({ name: `FUZZ_SECRET_${i + 1}`, value })) };
  const body = writeJson(rng, requestDoc(rng, { values: c.values, depth: rng.int(2, 3), keyShare: 0.1 }), { styles: [PYTHON_STYLE], spacing: 'python' });
  return withBody(c, Buffer.from(body, 'utf8'), 'application/json', 'json');
};

/** Plain text: values raw, and inside JSON snippets escaped (ensure_ascii or mixed). */
export const textBody: RequestGen = (rng) => {
  const c = baseCase(rng);
  let text = prose(rng, c.values, 0.3, true);
  // One string level: deeper escaped snippets are json-ascii-nested's and json-escape-building's.
  if (rng.chance(0.6)) text += `\n\`\`\`json\n${writeJson(rng, requestDoc(rng, { values: c.values, depth: 1, keyShare: 0 }), { styles: [rng.chance(0.5) ? PYTHON_STYLE : randomStyle(rng)], spacing: 'python' })}\n\`\`\`\n`;
  return withBody(c, Buffer.from(text, 'utf8'), rng.pick(['text/plain', 'text/plain; charset=utf-8', 'text/markdown']), 'none');
};

/** Percent-encoded values inside JSON and text bodies (a callback URL, a curl line in a prompt). */
export const percentInBody: RequestGen = (rng) => {
  const c = baseCase(rng);
  const mode = rng.pick(['component', 'lower', 'all', 'form', 'mixed'] as const);
  const encoded = c.values.map((v) => `https://cb.example/x?token=${percentEncode(rng, v, mode)}&y=1`);
  if (rng.chance(0.5)) return withBody(c, Buffer.from(prose(rng, encoded, 0.5, true), 'utf8'), 'text/plain', 'none');
  return withBody(c, jsonBody(rng, encoded, 1, [PLAIN_STYLE]), 'application/json', 'json');
};

function formField(rng: Rng, name: string, value: string, mode: PercentMode): string {
  return `${name}=${percentEncode(rng, value, mode)}`;
}

/** Form bodies whose fields are exactly a value (names too, sometimes), ASCII filler. */
export const formWhole: RequestGen = (rng) => {
  const c = baseCase(rng);
  const fields = [formField(rng, 'model', 'gpt-x', 'component'), formField(rng, 'n', '3', 'component')];
  for (const v of c.values) fields.push(rng.chance(0.2) ? `${percentEncode(rng, v, 'component')}=1` : formField(rng, rng.pick(['input', 'q', 'token']), v, rng.pick(['component', 'lower', 'all', 'form', 'mixed'] as const)));
  return withBody(c, Buffer.from(rng.shuffle(fields).join('&')), 'application/x-www-form-urlencoded', 'none');
};

/** Form fields mixing non-ASCII filler, `+` spaces and a value (`q=café+<value>`). */
export const formMixed: RequestGen = (rng) => {
  const c = baseCase(rng);
  const fields = c.values.map((v) => {
    // Some clients leave non-ASCII filler unencoded (raw UTF-8 bytes in the form).
    if (rng.chance(0.4)) return `q=${rng.pick(['café', 'naïve'])}+${percentEncode(rng, v, 'form')}+${rng.pick(['fin', 'über'])}`;
    return `q=${percentEncode(rng, `${rng.pick(['café', 'naïve text', 'a+b', 'x'])} ${v} ${rng.pick(['fin', 'über', ''])}`, rng.pick(['form', 'mixed', 'component'] as const))}`;
  });
  fields.push('lang=caf%C3%A9+cr%C3%A8me');
  return withBody(c, Buffer.from(rng.shuffle(fields).join('&'), 'utf8'), 'application/x-www-form-urlencoded', 'none');
};

function binaryNoise(rng: Rng, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = rng.int(0, 255);
  return b;
}

type PartForm = 'raw' | 'escaped' | 'percent';

function part(rng: Rng, values: readonly string[], form: PartForm): Part {
  const kind = rng.pick(['json', 'jsonl', 'text', 'file', 'untyped'] as const);
  const disp = `Content-Disposition: form-data; name="${kind}"${kind === 'file' ? '; filename="batch.bin"' : ''}`;
  const shown = form === 'percent' ? values.map((v) => percentEncode(rng, v, rng.pick(['component', 'lower', 'all'] as const))) : values;
  const style = form === 'escaped' ? [PYTHON_STYLE, randomStyle(rng)] : [PLAIN_STYLE];
  let body: Buffer;
  let type: string | undefined;
  if (kind === 'json') {
    type = 'application/json';
    body = Buffer.from(writeJson(rng, requestDoc(rng, { values: shown, depth: rng.int(1, 2), keyShare: 0.1 }), { styles: style, spacing: 'python' }));
  } else if (kind === 'jsonl') {
    type = rng.pick(['application/jsonl', 'application/x-ndjson']);
    const lines = [0, 1, 2].map(() => writeJson(rng, requestDoc(rng, { values: shown, depth: 1, keyShare: 0 }), { styles: style, spacing: 'python' }));
    body = Buffer.from(lines.join('\n'));
  } else if (kind === 'file') {
    type = 'application/octet-stream';
    const inner = form === 'raw' ? prose(rng, shown, 0.5, true) : writeJson(rng, requestDoc(rng, { values: shown, depth: 1, keyShare: 0 }), { styles: style, spacing: 'compact' });
    body = Buffer.concat([binaryNoise(rng, rng.int(0, 64)), Buffer.from(inner), binaryNoise(rng, rng.int(0, 64))]);
  } else {
    type = kind === 'text' ? 'text/plain' : undefined;
    body = Buffer.from(form === 'escaped' ? writeJson(rng, { t: 'str', s: prose(rng, shown, 0.5, true) }, { styles: style, spacing: 'compact' }) : prose(rng, shown, 0.5, true));
  }
  return { headers: type === undefined ? [disp] : [disp, `Content-Type: ${type}`], body };
}

function multipartCase(rng: Rng, form: PartForm): RequestCase {
  const c = baseCase(rng, { plainShare: form === 'raw' ? 0.35 : 0.1 });
  const boundary = `----fuzz${Math.floor(rng.next() * 1e12).toString(36)}`;
  const parts = Array.from({ length: rng.int(1, 4) }, () => part(rng, c.values, form));
  return withBody(c, multipart(boundary, parts, rng.chance(0.8)), `multipart/form-data; boundary=${boundary}`, 'none');
}

/** Multipart with typed parts (JSON, JSONL, text, file, untyped) holding values raw. */
export const multipartRaw: RequestGen = (rng) => multipartCase(rng, 'raw');
/** Multipart parts holding values escaped the way Python's json.dumps writes them. */
export const multipartEscaped: RequestGen = (rng) => multipartCase(rng, 'escaped');
/** Multipart parts holding percent-encoded values. */
export const multipartPercent: RequestGen = (rng) => multipartCase(rng, 'percent');

/** The provider prefixes values.ts gives tokens. */
const TOKEN_PREFIX = /^(sk-ant-api03-|sk-proj-|sk-|ghp_|xoxb-|AKIA|glpat-|hf_)/;

/**
 * Text next to a JSON escape that reads like a value when the escape is ignored: a value ending in a
 * backslash whose stem is followed by `\"`, a value starting with an escape letter (`n t r b f u`)
 * written right after a backslash, and value families (A, A + `\`) with A before a closing `\"`.
 */
export const escapeBoundary: RequestGen = (rng) => {
  const c = baseCase(rng, { plainShare: 1 }, 1);
  // Without its provider prefix: a stem that is itself a well-formed credential (`glpat-` and 20 letters)
  // is redacted by detection wherever it stands, which this class's oracle (registered values only) does
  // not model. Seen as escape-boundary/593950040: the text held `glpat-…` beside `\"`, detection took it.
  const stem = (c.values[0] as string).replace(/\\+$/, '').replace(TOKEN_PREFIX, '');
  let text: string;
  switch (rng.int(0, 2)) {
    case 0:
      c.values = [`${stem}\\`];
      text = `say ${stem}" now`;
      break;
    case 1: {
      const letter = rng.pick(['n', 't', 'r', 'b', 'f']);
      c.values = [`${letter}${stem}`];
      text = `col1${({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[letter]}${stem}`;
      break;
    }
    default:
      c.values = [stem, `${stem}\\`];
      text = JSON.stringify({ [stem]: true, text: 'x' });
  }
  c.register = { kind: 'source', entries: c.values.map((value, i) => ({ name: `FUZZ_SECRET_${i + 1}`, value })) };
  const body = JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: rng.chance(0.5) ? text : JSON.stringify({ content: text }) }] });
  return withBody(c, Buffer.from(body, 'utf8'), 'application/json', 'json');
};

/** Opaque bytes (octet-stream, images) with a raw value inside. */
export const binaryRaw: RequestGen = (rng) => {
  const c = baseCase(rng);
  const body = Buffer.concat([binaryNoise(rng, rng.int(0, 512)), Buffer.from(rng.pick(c.values)), binaryNoise(rng, rng.int(0, 512))]);
  return withBody(c, body, rng.pick(['application/octet-stream', 'image/png', 'audio/wav', 'application/zip']), 'none');
};

/** application/octet-stream holding JSON with `\u` escapes. */
export const binaryEscaped: RequestGen = (rng) => {
  const c = baseCase(rng, { plainShare: 0.05 });
  return withBody(c, jsonBody(rng, c.values, rng.int(1, 2), [PYTHON_STYLE, randomStyle(rng)]), 'application/octet-stream', 'none');
};

/** Values registered through one dotenv file that defines a name more than once. */
export const envDuplicates: RequestGen = (rng) => {
  const c = baseCase(rng, { alphabet: 'no-control' }, rng.int(2, 4));
  registerByEnvFile(rng, c);
  const doc: JNode = { t: 'obj', entries: [['messages', { t: 'arr', items: c.values.map((v): JNode => ({ t: 'str', s: `use ${v} here` })) }]] };
  return withBody(c, Buffer.from(writeJson(rng, doc, { styles: [PLAIN_STYLE], spacing: 'compact' })), 'application/json', 'json');
};

/** One value repeated many times in a JSON string (sometimes over 130,000 times: past any argument-spread limit). */
export const manyHits: RequestGen = (rng) => {
  const c = baseCase(rng, { plainShare: 1 }, 1);
  const short = `hit-${Math.floor(rng.next() * 36 ** 6).toString(36).padStart(6, '0')}`;
  const v = rng.chance(0.5) ? short : (c.values[0] as string);
  c.values = [v];
  c.register = { kind: 'source', entries: [{ name: 'FUZZ_SECRET_1', value: v }] };
  const n = rng.chance(0.25) ? rng.int(130_000, 180_000) : rng.int(1, 3000);
  const sep = rng.pick([' ', ',', '', '\\n']);
  const text = Array.from({ length: n }, () => (n > 100_000 ? short : v)).join(sep);
  if (n > 100_000) {
    c.values = [short];
    c.register = { kind: 'source', entries: [{ name: 'FUZZ_SECRET_1', value: short }] };
  }
  const body = `{"model":"gpt-x","messages":[{"role":"user","content":"${text}"}]}`;
  return withBody(c, Buffer.from(body), 'application/json', 'json');
};
