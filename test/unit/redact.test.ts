import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { redactBody } from '../../src/redact/body.ts';
import { classifyBody } from '../../src/redact/body-kind.ts';
import { gateRequest, describeFindings } from '../../src/redact/gate.ts';
import { redactHeaders, forwardableHeaders } from '../../src/redact/headers.ts';
import { inspect, selectHits } from '../../src/redact/inspect.ts';
import { maskValues, redactTarget } from '../../src/redact/url.ts';
import { asciiEscape, fullUnicodeEscape } from '../helpers/leak-oracle.ts';
import { ph, testSet } from '../helpers/secret-set.ts';

const KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const WEIRD = 'pa"ss\\wörd\n-x1';
const set = testSet({ ANTHROPIC_KEY: KEY, WEIRD_PW: WEIRD });

function redactJson(text: string): { out: string; clean: boolean; counts: Map<number, number> } {
  const counts = new Map<number, number>();
  const r = redactBody(set, Buffer.from(text, 'utf8'), 'json', counts);
  return { out: r.bytes.toString('utf8'), clean: r.clean, counts };
}

function gateBody(bytes: Buffer, kind: 'json' | 'text' | 'binary' = 'json'): string[] {
  return gateRequest(set, { target: '/v1/messages', headers: [], body: bytes, bodyKind: kind }).map((f) => `${set.names[f.secret]}@${f.surface}`);
}

describe('redactBody (JSON)', () => {
  it('replaces a value in a string value and in a key at any depth', () => {
    const body = JSON.stringify({ a: [{ b: { c: `x ${KEY} y` } }], [KEY]: 1 });
    const { out } = redactJson(body);
    expect(out).toBe(body.split(KEY).join(ph(set, KEY)));
    expect(gateBody(Buffer.from(out))).toEqual([]);
  });

  it('forwards every other byte exactly: big integers, escapes, whitespace', () => {
    const body = `{ "n": 123456789012345678901234567890, "f": 1.50e+10,\n\t"s": "a\\u00e9\\/b ${KEY}",  "e": "\\ud83d\\ude00" }`;
    const { out } = redactJson(body);
    expect(out).toBe(body.replace(KEY, ph(set, KEY)));
  });

  it('leaves a body without secrets as the same buffer and marks it scanned clean', () => {
    const buf = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: 'hello ~ world' }] }));
    const r = redactBody(set, buf, 'json', new Map());
    expect(r.bytes).toBe(buf);
    expect(r.clean).toBe(true);
  });

  it('finds a value that needs JSON escaping, once and twice escaped (tool arguments)', () => {
    const args = JSON.stringify({ password: WEIRD });
    const body = JSON.stringify({ direct: WEIRD, tool: { arguments: args } });
    const { out } = redactJson(body);
    expect(out).not.toContain('ss\\\\w');
    const parsed = JSON.parse(out);
    expect(parsed.direct).toBe(ph(set, WEIRD));
    expect(JSON.parse(parsed.tool.arguments)).toEqual({ password: ph(set, WEIRD) });
  });

  it('finds values written with \\u escapes (Python ensure_ascii) and every char escaped', () => {
    const body = `{"a":"${asciiEscape(WEIRD)}","b":"${fullUnicodeEscape(KEY)}","c":"pre ${KEY.slice(0, 5)}\\u${KEY.charCodeAt(5).toString(16).padStart(4, '0')}${KEY.slice(6)} post"}`;
    expect(JSON.parse(body).a).toBe(WEIRD);
    const { out } = redactJson(body);
    const parsed = JSON.parse(out);
    expect(parsed).toEqual({ a: ph(set, WEIRD), b: ph(set, KEY), c: `pre ${ph(set, KEY)} post` });
    expect(gateBody(Buffer.from(out))).toEqual([]);
  });

  it('finds \\u-escaped values inside nested JSON text (Python tool arguments)', () => {
    const inner = `{"pw": "${asciiEscape(WEIRD)}"}`; // what json.dumps writes
    const body = JSON.stringify({ arguments: inner });
    expect(JSON.parse(JSON.parse(body).arguments).pw).toBe(WEIRD);
    const { out } = redactJson(body);
    expect(JSON.parse(JSON.parse(out).arguments).pw).toBe(ph(set, WEIRD));
  });

  it('finds values with escaped slashes', () => {
    const s = testSet({ URLISH: 'https://user:hunter2pass@example.com/x' });
    const body = '{"u":"https:\\/\\/user:hunter2pass@example.com\\/x"}';
    const r = redactBody(s, Buffer.from(body), 'json', new Map());
    expect(JSON.parse(r.bytes.toString()).u).toBe(s.placeholders[0]);
  });

  it('lets the longest of overlapping values win', () => {
    const s = testSet({ SHORT: 'abcdefgh', LONG: 'abcdefgh-extended', OVERLAP: 'efgh-extended-more' });
    const r = redactBody(s, Buffer.from('{"t":"abcdefgh-extended-more and abcdefgh"}'), 'json', new Map());
    const out = JSON.parse(r.bytes.toString()).t as string;
    expect(out).toBe(`abcd${ph(s, 'efgh-extended-more')} and ${ph(s, 'abcdefgh')}`);
    expect(gateRequest(s, { target: '/', headers: [], body: r.bytes, bodyKind: 'json' })).toEqual([]);
  });

  it('redacts every copy of a value repeated back to back', () => {
    const s = testSet({ A: 'aaaaaaaa' });
    const r = redactBody(s, Buffer.from(`{"t":"${'a'.repeat(20)}"}`), 'json', new Map());
    expect(JSON.parse(r.bytes.toString()).t).toBe(`${ph(s, 'aaaaaaaa')}${ph(s, 'aaaaaaaa')}aaaa`);
  });

  it('does not replace a value outside a string (a JSON number); the gate blocks it', () => {
    const s = testSet({ ACCOUNT: '12345678901234' });
    const body = Buffer.from('{"account": 12345678901234, "note": "ok"}');
    const r = redactBody(s, body, 'json', new Map());
    expect(r.bytes.toString()).toBe(body.toString());
    const findings = gateRequest(s, { target: '/', headers: [], body: r.bytes, bodyKind: 'json' });
    expect(describeFindings(s, findings)).toBe('ACCOUNT in body');
  });
});

describe('redactBody (other kinds)', () => {
  it('redacts plain text bodies', () => {
    const r = redactBody(set, Buffer.from(`token=${KEY}\n`), 'text', new Map());
    expect(r.bytes.toString()).toBe(`token=${ph(set, KEY)}\n`);
  });

  it('redacts percent-encoded form fields', () => {
    const body = Buffer.from(`a=1&pw=${encodeURIComponent(WEIRD)}&b=${encodeURIComponent('x y')}`);
    const r = redactBody(set, body, 'form', new Map());
    expect(r.bytes.toString()).toBe(`a=1&pw=${ph(set, WEIRD)}&b=${encodeURIComponent('x y')}`);
  });

  it('never rewrites binary bodies; the gate blocks raw secret bytes in them', () => {
    const body = Buffer.concat([Buffer.from([0, 1, 2, 255]), Buffer.from(`--b\r\nContent-Disposition: form-data; name="f"\r\n\r\n${KEY}\r\n--b--`)]);
    const r = redactBody(set, body, 'binary', new Map());
    expect(r.bytes).toBe(body);
    expect(gateBody(r.bytes, 'binary')).toEqual(['ANTHROPIC_KEY@body (binary)']);
  });

  it('classifies bodies by content type and sniffing', () => {
    expect(classifyBody('application/json; charset=utf-8', Buffer.from('{}'))).toBe('json');
    expect(classifyBody('multipart/form-data; boundary=x', Buffer.from('--x'))).toBe('multipart');
    expect(classifyBody('audio/wav', Buffer.from('RIFF'))).toBe('binary');
    expect(classifyBody(undefined, Buffer.from(' {"a":1}'))).toBe('json');
    expect(classifyBody(undefined, Buffer.from([0xff, 0xfe, 0x00]))).toBe('binary');
    expect(classifyBody('text/plain', Buffer.from('x'))).toBe('text');
  });
});

describe('gate', () => {
  it('catches what a broken redactor left behind (raw, escaped, \\u-escaped, nested)', () => {
    for (const body of [
      JSON.stringify({ a: KEY }),
      JSON.stringify({ a: WEIRD }),
      JSON.stringify({ a: JSON.stringify({ b: WEIRD }) }),
      `{"a":"${asciiEscape(WEIRD)}"}`,
      `{"a":"${fullUnicodeEscape(KEY)}"}`,
    ]) {
      expect(gateBody(Buffer.from(body)).length, body.length.toString()).toBe(1);
    }
  });

  it('catches values in the query, the path, and non-auth headers, but passes auth headers', () => {
    const findings = gateRequest(set, {
      target: `/v1/x/${encodeURIComponent(KEY)}?q=${encodeURIComponent(WEIRD)}`,
      headers: [
        ['x-api-key', KEY],
        ['authorization', `Bearer ${KEY}`],
        ['x-debug', `k=${KEY}`],
        ['x-enc', encodeURIComponent(WEIRD)],
      ],
      body: Buffer.alloc(0),
      bodyKind: 'json',
    });
    expect(describeFindings(set, findings).split('; ').sort()).toEqual([
      'ANTHROPIC_KEY in header x-debug',
      'ANTHROPIC_KEY in path',
      'WEIRD_PW in header x-enc',
      'WEIRD_PW in query',
    ]);
  });

  it('checks the decoded bytes, so a gzip body is only as safe as its contents', () => {
    // The proxy decodes before redacting; a gzip body forwarded undecoded would hide the value from a byte scan.
    const gz = gzipSync(Buffer.from(JSON.stringify({ a: KEY })));
    expect(inspect(set, gz, { binary: true })).toEqual([]);
  });
});

describe('target and header redaction', () => {
  it('rewrites only the query parameters and path segments that hold a value', () => {
    const counts = new Map<number, number>();
    const out = redactTarget(set, `/v1/messages?beta=true&k=${encodeURIComponent(KEY)}&x=a%2Fb`, counts);
    expect(out).toBe(`/v1/messages?beta=true&k=${ph(set, KEY)}&x=a%2Fb`);
    expect(redactTarget(set, `/v1/files/${KEY}/content`, counts)).toBe(`/v1/files/${ph(set, KEY)}/content`);
    expect([...counts.values()]).toEqual([2]);
  });

  it('passes kept query parameters (Gemini key=) as sent, raw or percent-encoded, and redacts the rest around them', () => {
    const keep = new Set(['key']);
    const counts = new Map<number, number>();
    const target = `/v1beta/models/g:generateContent?key=${KEY}&q=${encodeURIComponent(KEY)}&key=${encodeURIComponent(WEIRD)}&k%65y=${KEY}`;
    expect(redactTarget(set, target, counts, keep)).toBe(`/v1beta/models/g:generateContent?key=${KEY}&q=${ph(set, KEY)}&key=${encodeURIComponent(WEIRD)}&k%65y=${ph(set, KEY)}`);
    expect([...counts.values()]).toEqual([2]);
    // The gate leaves exactly the kept parameters out, like auth headers.
    const gate = (t: string): string[] => gateRequest(set, { target: t, headers: [], body: Buffer.alloc(0), bodyKind: 'json', authQuery: keep }).map((f) => `${set.names[f.secret]}@${f.surface}`);
    expect(gate(`/v1beta/x?key=${KEY}&alt=sse`)).toEqual([]);
    expect(gate(`/v1beta/x?key=${KEY}&k%65y=${encodeURIComponent(KEY)}`)).toEqual(['ANTHROPIC_KEY@query']);
  });

  it('masks every value for a log line, across path separators too', () => {
    const slashed = testSet({ PATH_TOKEN: 'tenant-8842/secret-path-token-77' });
    const path = '/v1/files/tenant-8842/secret-path-token-77/content';
    expect(redactTarget(slashed, path, new Map())).toBe(path); // left for the gate, which blocks it
    expect(maskValues(slashed, path)).toBe(`/v1/files/${ph(slashed, 'tenant-8842/secret-path-token-77')}/content`);
    expect(maskValues(set, `/v1/x;m=${encodeURIComponent(WEIRD)}`)).toBe(`/v1/x;m=${ph(set, WEIRD)}`);
  });

  it('redacts non-auth headers and drops hop-by-hop ones', () => {
    const headers = forwardableHeaders(['Host', 'x', 'Connection', 'keep-alive, x-drop', 'X-Drop', '1', 'X-Api-Key', KEY, 'X-Trace', `id ${KEY}`, 'Content-Length', '5']);
    redactHeaders(set, headers, new Map());
    expect(headers).toEqual([
      ['x-api-key', KEY],
      ['x-trace', `id ${ph(set, KEY)}`],
    ]);
  });
});

describe('selectHits', () => {
  it('keeps non-overlapping hits in order and resolves clusters by length', () => {
    const hits = [
      { start: 0, end: 8, secret: 0, inString: false },
      { start: 4, end: 20, secret: 1, inString: false },
      { start: 30, end: 38, secret: 0, inString: false },
    ];
    expect(selectHits(hits).map((h) => h.start)).toEqual([4, 30]);
  });
});

describe('SecretSet.valueBytes', () => {
  it('gives each secret its own value at every escape depth, past the cached ones too', () => {
    for (const depth of [0, 1, 7, 8, 9, 12]) {
      // Each depth in a fresh set, after another secret's shallow forms are cached.
      const s = testSet({ ANTHROPIC_KEY: KEY, WEIRD_PW: WEIRD });
      for (let d = 0; d < 8; d++) s.valueBytes(1, d);
      let want = KEY;
      for (let d = 0; d < depth; d++) want = JSON.stringify(want).slice(1, -1);
      expect(s.valueBytes(0, depth).toString('utf8')).toBe(want);
      let weird = WEIRD;
      for (let d = 0; d < depth; d++) weird = JSON.stringify(weird).slice(1, -1);
      expect(s.valueBytes(1, depth).toString('utf8')).toBe(weird);
    }
  });
});
