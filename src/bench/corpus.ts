// Deterministic benchmark inputs: secrets with real-world shapes and request/response bodies with
// prose, code and tool results, sized by name (1KiB … 5MiB).

import { jsonEscape } from '../src/redact/json-escape.ts';

export const SIZES = { '1KiB': 1024, '50KiB': 50 * 1024, '500KiB': 500 * 1024, '5MiB': 5 * 1024 * 1024 } as const;
export type SizeName = keyof typeof SIZES;

/** Seeded PRNG (mulberry32). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `n` secrets shaped like real credentials (Anthropic, GitHub, AWS, generic 40-char, passwords). */
export function makeSecrets(n: number, seed = 1): Record<string, string> {
  const rnd = mulberry32(seed);
  const shapes = [
    { prefix: 'sk-ant-api03-', length: 60, chars: `${BASE62}-_` },
    { prefix: 'ghp_', length: 40, chars: BASE62 },
    { prefix: 'AKIA', length: 20, chars: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567' },
    { prefix: 'sk-proj-', length: 56, chars: `${BASE62}-_` },
    { prefix: '', length: 40, chars: BASE62 },
    { prefix: 'pw-', length: 16, chars: `${BASE62}!@#%^&*` },
  ];
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const shape = shapes[i % shapes.length]!;
    let s = shape.prefix;
    while (s.length < shape.length) s += shape.chars[Math.floor(rnd() * shape.chars.length)];
    out[`SECRET_${i}`] = s;
  }
  return out;
}

const WORDS = (
  'the proxy request response secret token config deploy build server client stream event error value ' +
  'field index message content tool function argument result cache retry timeout header key user ' +
  'assistant AKIA sk-ant ghp_ sk-proj ask akin skip système naïve données 日本語 2026 v1 ~/.config'
).split(' ');
const CODE = [
  'const client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY });',
  'for (let i = 0; i < items.length; i++) { total += items[i].price * items[i].qty; }',
  'def handler(event, context):\n    return {"statusCode": 200, "body": json.dumps(event)}',
  'git commit -m "fix: retry on 529 overloaded" && git push origin HEAD',
  "SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL '7 days';",
];

function text(rnd: () => number, words: number): string {
  let t = '';
  for (let k = 0; k < words; k++) t += rnd() < 0.06 ? `\n${CODE[Math.floor(rnd() * CODE.length)]}\n` : `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
  return t;
}

export interface BodyOptions {
  /** Values to plant in the text (each once, spread through the body). */
  plant?: string[];
  /** Write non-ASCII as \u escapes (Python's json.dumps). */
  asciiEscapes?: boolean;
  seed?: number;
}

/** An Anthropic Messages request body of about `bytes` bytes: user prose, assistant code, tool results. */
export function makeMessagesBody(bytes: number, options: BodyOptions = {}): Buffer {
  const rnd = mulberry32(options.seed ?? 7);
  const plant = [...(options.plant ?? [])];
  const messages: string[] = [];
  let size = 80;
  const esc = options.asciiEscapes === true ? asciiJson : (s: string) => JSON.stringify(s);
  let turn = 0;
  while (size < bytes) {
    let t = text(rnd, 60);
    if (plant.length > 0 && rnd() < 0.3) t += ` ${plant.shift()} `;
    const m =
      turn % 3 === 2
        ? `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_${turn}","content":${esc(t)}}]}`
        : `{"role":"${turn % 3 === 0 ? 'user' : 'assistant'}","content":${esc(t)}}`;
    messages.push(m);
    size += m.length + 1;
    turn++;
  }
  if (plant.length > 0) messages.push(`{"role":"user","content":${esc(plant.join(' '))}}`);
  return Buffer.from(`{"model":"claude-sonnet-4-5","max_tokens":4096,"stream":true,"messages":[${messages.join(',')}]}`);
}

function asciiJson(s: string): string {
  return `"${jsonEscape(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
