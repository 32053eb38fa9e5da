// Request bodies of the shapes that once made a redact or gate stage superlinear (issue 9): many hits,
// JSON text nested in strings many levels deep with escapes at the bottom, many tiny strings, one relevant
// escape in a large body, percent-encoded values, values beside escapes. `pnpm bench --filter redact-gate` times each one, so a
// stage that stops being linear shows as a ms/MB figure that grows with the body size.

import { jsonEscape } from '../redact/json-escape.ts';
import { redactBody } from '../redact/body.ts';
import { gateRequest } from '../redact/gate.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { makeMessagesBody, SIZES, type SizeName } from './corpus.ts';
import { benchSecretSet, countLabel, MICRO_HITS, type MicroCase } from './micro.ts';

export type RedactShape = 'many-hits' | 'nested-8' | 'many-strings' | 'sparse-escape' | 'percent' | 'escape-edges';
export const REDACT_SHAPES: readonly RedactShape[] = ['many-hits', 'nested-8', 'many-strings', 'sparse-escape', 'percent', 'escape-edges'];

/** The first character of `v` as a `\u` escape (a relevant one: the value holds it). */
function escapeFirst(v: string): string {
  return `\\u${v.charCodeAt(0).toString(16).padStart(4, '0')}${v.slice(1)}`;
}

/** A body of about `bytes` bytes in `shape`, holding `planted` (each at least once). */
export function makeShapeBody(shape: RedactShape, bytes: number, planted: readonly string[]): Buffer {
  switch (shape) {
    case 'many-hits': {
      // One string made of values back to back with a space: ~bytes / 45 hits (11,000 in 500 KiB).
      const unit = `${planted.join(' ')} `;
      return Buffer.from(`{"messages":[{"role":"user","content":"${unit.repeat(Math.max(1, Math.floor(bytes / unit.length)))}"}]}`);
    }
    case 'nested-8': {
      // Tool arguments in tool results, 8 string levels deep, each value's first character \u-escaped at the bottom.
      const leaf = planted.map(escapeFirst).join(' ');
      let text = `{"k":"${leaf}"}`;
      for (let i = 1; i < 8; i++) text = `{"k":"${jsonEscape(text)}"}`;
      const filler = makeMessagesBody(Math.max(0, bytes - text.length - 64), { stream: false }).toString('utf8');
      return Buffer.from(`{"nested":"${jsonEscape(text)}","rest":${filler}}`);
    }
    case 'many-strings': {
      // Tiny strings, one in eight holding a \u escape, values among them.
      const parts: string[] = [];
      let size = 2;
      for (let i = 0; size < bytes; i++) {
        const s = i % 97 === 0 ? `"${escapeFirst(planted[(i / 97) % planted.length] as string)}"` : i % 8 === 0 ? '"\\u00e9"' : '"ab"';
        parts.push(s);
        size += s.length + 1;
      }
      for (const v of planted) parts.push(`"${v}"`);
      return Buffer.from(`[${parts.join(',')}]`);
    }
    case 'sparse-escape': {
      // A large ordinary body with the values in it and one escape that builds an escape (\u005c) in the middle.
      const body = makeMessagesBody(bytes, { plant: [...planted] }).toString('utf8');
      const mid = body.indexOf('"content":"', body.length >> 1) + 11;
      return Buffer.from(`${body.slice(0, mid)}\\u005cu0041 ${body.slice(mid)}`);
    }
    case 'escape-edges': {
      // Every value right after an escaped backslash (Windows paths: `C:\\<value>\\n`), so each hit's start
      // is looked up as a possible escape edge: ~bytes / 55 hits in one string.
      const unit = planted.map((v) => `C:\\\\${v}\\\\n `).join('');
      return Buffer.from(`{"messages":[{"role":"user","content":"${unit.repeat(Math.max(1, Math.floor(bytes / unit.length)))}"}]}`);
    }
    case 'percent': {
      // Values percent-encoded inside URLs in a JSON body (every character encoded).
      const body = makeMessagesBody(bytes).toString('utf8');
      const urls = planted.map((v) => `https://x.example/cb?token=${Array.from(Buffer.from(v), (b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`);
      return Buffer.from(`${body.slice(0, -2)},{"role":"user","content":"${urls.join(' ')}"}]}`);
    }
  }
}

function redactAndGate(set: SecretSet, body: Buffer): Buffer {
  const r = redactBody(set, body, 'json', new Map());
  const findings = gateRequest(set, { target: '/v1/messages', headers: [], body: r.bytes, bodyKind: 'json' }, r.clean ? { scannedCleanBody: r.bytes } : {});
  if (findings.length > 0) throw new Error('bench: gate blocked a redacted body');
  return r.bytes;
}

/** Redact + gate over each shape, checked first: every planted value replaced, the gate clean. */
export function redactShapeCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  return counts.flatMap((n) =>
    sizes.flatMap((size) =>
      REDACT_SHAPES.map((shape): MicroCase => {
        const name = `micro/redact-gate/${shape}/${countLabel(n)}/${size}`;
        return {
          name,
          prepare: () => {
            const { set, values } = benchSecretSet(n);
            const planted = Array.from({ length: MICRO_HITS }, (_, i) => values[Math.floor((i * values.length) / MICRO_HITS)] as string);
            const body = makeShapeBody(shape, SIZES[size], planted);
            return {
              bytes: body.length,
              fn: () => redactAndGate(set, body),
              check: () => {
                const out = redactAndGate(set, body);
                for (const v of planted) {
                  if (out.includes(v)) throw new Error(`bench: ${name}: a planted value survived`);
                  if (!out.includes(set.placeholders[set.values.indexOf(v)] as string)) throw new Error(`bench: ${name}: a planted value was not replaced`);
                }
              },
            };
          },
        };
      }),
    ),
  );
}
