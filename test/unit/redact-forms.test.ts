// Every form a registered value can take in a request body is found, whatever builds it: escapes that build
// escapes (`\u005c`), JSON text nested in strings to any depth, percent-encoding in any body kind, binary
// bodies and multipart parts; and only the value's own bytes change when it is replaced.

import { describe, expect, it } from 'vitest';
import { isFictaError } from '../../src/errors.ts';
import { redactBody } from '../../src/redact/body.ts';
import { classifyBody } from '../../src/redact/body-kind.ts';
import { gateRequest } from '../../src/redact/gate.ts';
import { jsonEscape } from '../../src/redact/json-escape.ts';
import { ph, testSet } from '../helpers/secret-set.ts';

// No backslash, quote, slash or percent sign in these: nothing here depends on the values' characters.
const KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const QUOTED = 'pa"ss-wörd-99';
const set = testSet({ ANTHROPIC_KEY: KEY, QUOTED_PW: QUOTED });

type Kind = 'json' | 'text' | 'form' | 'binary' | 'multipart';

function gate(body: string | Buffer, kind: Kind = 'json'): string[] {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return gateRequest(set, { target: '/v1/messages', headers: [], body: bytes, bodyKind: kind }).map((f) => set.names[f.secret] as string);
}

function redact(body: string | Buffer, kind: Kind = 'json', contentType?: string): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return redactBody(set, bytes, kind, new Map(), contentType).bytes;
}

/** JSON-escapes `s` `n` times, writing each backslash as `\u005c` instead of `\\` (valid JSON, a rarer writer). */
function escapeWithU005c(s: string, n: number): string {
  let out = s;
  for (let i = 0; i < n; i++) out = Array.from(out, (c) => (c === '\\' ? '\\u005c' : jsonEscape(c))).join('');
  return out;
}

/** `value` wrapped as JSON text in a string `depth` times: {"k":"{\"k\":\"…\"}"}. */
function nest(value: string, depth: number): string {
  let text = JSON.stringify({ k: value });
  for (let i = 1; i < depth; i++) text = JSON.stringify({ k: text });
  return text;
}

describe('escapes that build escapes', () => {
  // Level 1 holds JSON text whose string has a \u escape; the backslash of that escape is itself escaped.
  const cases: Array<[string, string]> = [
    ['the backslash as \\u005c', `{"t":"{\\"k\\":\\"\\u005cu0073${KEY.slice(1)}\\"}"}`],
    ['the u as \\u0075', `{"t":"{\\"k\\":\\"\\\\\\u00750073${KEY.slice(1)}\\"}"}`],
    ['a hex digit as \\u0037', `{"t":"{\\"k\\":\\"\\\\u00\\u00373${KEY.slice(1)}\\"}"}`],
    ['two levels of \\u005c', `{"t":"${escapeWithU005c(`{"k":"${escapeWithU005c(`{"k":"\\u0073${KEY.slice(1)}"}`, 1)}"}`, 1)}"}`],
  ];
  it('finds a value whose escape letter is itself escaped (a u006e after an escaped backslash), though no value holds an n', () => {
    const s = testSet({ NEWLINE: 'ab\ncdXYZ12' });
    const body = `{"t":"{\\"k\\":\\"ab\\\\\\u006ecdXYZ12\\"}"}`;
    expect(JSON.parse((JSON.parse(body) as { t: string }).t).k).toBe('ab\ncdXYZ12');
    const found = gateRequest(s, { target: '/', headers: [], body: Buffer.from(body), bodyKind: 'json' });
    expect(found.map((f) => s.names[f.secret])).toEqual(['NEWLINE']);
    const out = redactBody(s, Buffer.from(body), 'json', new Map()).bytes;
    expect(JSON.parse((JSON.parse(out.toString()) as { t: string }).t).k).toBe(ph(s, 'ab\ncdXYZ12'));
  });

  for (const [name, body] of cases) {
    it(`finds a value built by ${name}, though no value holds a backslash`, () => {
      expect(innermost(body)).toBe(KEY);
      expect(gate(body)).toEqual(['ANTHROPIC_KEY']);
      const out = redact(body);
      expect(gate(out)).toEqual([]);
      expect(out.toString()).toContain(ph(set, KEY));
    });
  }
});

describe('JSON text nested in strings to any depth', () => {
  for (const depth of [4, 5, 8, 12]) {
    it(`finds and replaces a value holding a quote ${depth} levels deep`, () => {
      const body = nest(QUOTED, depth);
      expect(gate(body)).toEqual(['QUOTED_PW']);
      const out = redact(body).toString();
      expect(gate(out)).toEqual([]);
      let inner: unknown = JSON.parse(out);
      for (let i = 1; i < depth; i++) inner = JSON.parse((inner as { k: string }).k);
      expect((inner as { k: string }).k).toBe(ph(set, QUOTED));
    });
  }

  it('finds a value nested five levels deep after many runs of four backslashes (the deep-run search falls back to its strided loop)', () => {
    // Runs of exactly four backslashes (JSON text holding `\\` escaped once more), each too short.
    const noise = `{"n":"${'\\\\\\\\x'.repeat(50)}"}`;
    expect(JSON.parse(noise).n).toBe('\\\\x'.repeat(50));
    for (const before of [0, 40, 200]) {
      const body = `[${Array(before).fill(noise).join(',')}${before > 0 ? ',' : ''}${nest(QUOTED, 5)}]`;
      expect(gate(body)).toEqual(['QUOTED_PW']);
      expect(gate(redact(body).toString())).toEqual([]);
    }
  });

  it('refuses, with a coded error, a body whose escapes nest past the limit', () => {
    // Each level of \u005c builds the next escape: 20 levels in a few hundred bytes.
    const body = `{"t":"${escapeWithU005c('\\u0041', 20)}"}`;
    let caught: unknown;
    try {
      gate(body);
    } catch (e) {
      caught = e;
    }
    expect(isFictaError(caught, 'FICTA_BODY_TOO_DEEP')).toBe(true);
    expect(String((caught as Error).message)).not.toContain(KEY);
  });
});

describe('every body kind, every form', () => {
  const pct = encodeURIComponent(QUOTED);
  it('gates a \\u-escaped value in an octet-stream body holding JSON', () => {
    const body = Buffer.from(`{"a":"${'\\u0073'}${KEY.slice(1)}"}`);
    expect(classifyBody('application/octet-stream', body)).toBe('binary');
    expect(gate(body, 'binary')).toEqual(['ANTHROPIC_KEY']);
  });

  it('gates a percent-encoded value in binary, JSON and text bodies', () => {
    expect(gate(Buffer.concat([Buffer.from([0, 1, 2, 0xff]), Buffer.from(`url=${pct}`), Buffer.from([0])]), 'binary')).toEqual(['QUOTED_PW']);
    expect(gate(`{"url":"https://x.example/?pw=${pct}"}`, 'json')).toEqual(['QUOTED_PW']);
    expect(gate(`see https://x.example/?pw=${pct} now`, 'text')).toEqual(['QUOTED_PW']);
  });

  it('replaces a percent-encoded value inside a JSON string, and nothing else', () => {
    const body = `{"url":"https://x.example/?a=%C3%A9&pw=${pct}&b=1"}`;
    expect(redact(body).toString()).toBe(body.replace(pct, ph(set, QUOTED)));
  });

  it('gates a \\u-escaped JSONL line in a multipart part whatever the part type', () => {
    const line = `{"custom_id":"1","body":{"messages":[{"content":"${jsonEscape(QUOTED).replace('ö', '\\u00f6')}"}]}}\n`;
    const body = multipart([{ headers: 'Content-Disposition: form-data; name="file"; filename="batch.jsonl"\r\nContent-Type: application/octet-stream', body: line }]);
    expect(gate(body, classifyBody('multipart/form-data; boundary=XyZ', body))).toEqual(['QUOTED_PW']);
  });
});

describe('multipart parts are redacted like bodies of their own type', () => {
  const boundary = '----ficta-test-7MA4YWxk';
  const type = `multipart/form-data; boundary=${boundary}`;
  const wav = Buffer.from([0x52, 0x49, 0x46, 0x46, 0, 1, 2, 0xff, 0x7e, 0x22, 0x5c]);
  const jsonl = `{"a":"${jsonEscape(QUOTED).replace('ö', '\\u00f6')}"}\n{"b":"x ${KEY} y"}\n`;
  const parts = [
    { headers: 'Content-Disposition: form-data; name="purpose"', body: 'batch' },
    { headers: 'Content-Disposition: form-data; name="file"; filename="batch.jsonl"\r\nContent-Type: application/jsonl', body: jsonl },
    { headers: 'Content-Disposition: form-data; name="note"\r\nContent-Type: text/plain; charset=utf-8', body: `token ${KEY} café` },
    { headers: 'Content-Disposition: form-data; name="audio"; filename="a.wav"\r\nContent-Type: audio/wav', body: wav },
  ];
  const body = multipart(parts, boundary);

  it('classifies multipart bodies', () => {
    expect(classifyBody(type, body)).toBe('multipart');
  });

  it('replaces values inside JSONL and text parts with byte surgery; framing and binary parts stay byte-exact', () => {
    const out = redact(body, classifyBody(type, body), type);
    const expected = multipart(
      [parts[0]!, { ...parts[1]!, body: `{"a":"${ph(set, QUOTED)}"}\n{"b":"x ${ph(set, KEY)} y"}\n` }, { ...parts[2]!, body: `token ${ph(set, KEY)} café` }, parts[3]!],
      boundary,
    );
    expect(out.equals(expected)).toBe(true);
    expect(gate(out, 'multipart')).toEqual([]);
  });

  it('leaves a value in a binary part for the gate', () => {
    const dirty = multipart([parts[0]!, { ...parts[3]!, body: Buffer.concat([wav, Buffer.from(KEY), wav]) }], boundary);
    const out = redact(dirty, 'multipart', type);
    expect(out.equals(dirty)).toBe(true);
    expect(gate(out, 'multipart')).toEqual(['ANTHROPIC_KEY']);
  });
});

describe('only the value span changes', () => {
  it('keeps the raw UTF-8 of a form body around a replaced value (no mojibake)', () => {
    const body = Buffer.from(`q=café+${encodeURIComponent(KEY)}&r=naïve+${KEY}&s=%E2%9C%93`, 'utf8');
    const out = redact(body, 'form');
    expect(out.toString('utf8')).toBe(`q=café+${ph(set, KEY)}&r=naïve+${ph(set, KEY)}&s=%E2%9C%93`);
  });

  it('replaces a percent-encoded value in a form field without re-encoding its neighbours', () => {
    const body = `a=x%20y&pw=caf%C3%A9%2D${encodeURIComponent(QUOTED)}%21&b=%7E`;
    expect(redact(body, 'form').toString()).toBe(`a=x%20y&pw=caf%C3%A9%2D${ph(set, QUOTED)}%21&b=%7E`);
  });
});

describe('many hits (no spread or recursion grows with the input)', () => {
  const SHORT = 'abcdefgh9';
  const short = testSet({ SHORT });
  // Past ~125,000 a spread into Math.max overflowed the stack (issue 9, item 14).
  const HITS = 200_000;

  it(`redacts ${HITS} copies of a value in one string`, () => {
    const body = Buffer.from(`{"t":"${`${SHORT} `.repeat(HITS)}"}`);
    const out = redactBody(short, body, 'json', new Map()).bytes;
    expect(out.toString()).toBe(`{"t":"${`${ph(short, SHORT)} `.repeat(HITS)}"}`);
    expect(gateRequest(short, { target: '/', headers: [], body: out, bodyKind: 'json' })).toEqual([]);
  });

  it(`redacts ${HITS} strings that each hold a value`, () => {
    const body = Buffer.from(`[${Array.from({ length: HITS }, () => `"${SHORT}"`).join(',')}]`);
    const out = redactBody(short, body, 'json', new Map()).bytes;
    expect(out.toString()).toBe(body.toString().split(SHORT).join(ph(short, SHORT)));
    expect(gateRequest(short, { target: '/', headers: [], body: out, bodyKind: 'json' })).toEqual([]);
  });

  it(`blocks ${HITS} copies of a value outside strings`, () => {
    const digits = testSet({ ACCOUNT: '4111111111111111' });
    const body = Buffer.from(`{"t":[${Array.from({ length: HITS }, () => '4111111111111111').join(',')}]}`);
    const out = redactBody(digits, body, 'json', new Map());
    expect(out.bytes.equals(body)).toBe(true);
    expect(gateRequest(digits, { target: '/', headers: [], body: out.bytes, bodyKind: 'json' }).length).toBe(1);
  });
});

/** The innermost string of {"t": "{\"k\": …}"}, parsed with JSON.parse at every level. */
function innermost(body: string): string {
  let s = (JSON.parse(body) as { t: string }).t;
  for (;;) {
    try {
      s = (JSON.parse(s) as { k: string }).k;
    } catch {
      return s;
    }
  }
}

interface Part {
  headers: string;
  body: string | Buffer;
}

function multipart(parts: readonly Part[], boundary = 'XyZ'): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) chunks.push(Buffer.from(`--${boundary}\r\n${p.headers}\r\n\r\n`), Buffer.isBuffer(p.body) ? p.body : Buffer.from(p.body, 'utf8'), Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
