// The sink seam of the stream restorer (what sink-aware restore plugs into): the restorer never restores
// inside a tool call itself; it hands the sink each complete call (held from its first placeholder until
// it ends, the events in their order and framing) and every whole-value copy, and puts back what the
// sink returns. A toy sink here: a call is restored only when its arguments say "ok".

import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/providers/anthropic-messages.ts';
import { openaiChat } from '../../src/providers/openai-chat.ts';
import { openaiResponses } from '../../src/providers/openai-responses.ts';
import type { StreamAdapter } from '../../src/providers/types.ts';
import { PLACEHOLDER_LENGTH } from '../../src/redact/placeholder.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import type { RestoreSink, SinkCall } from '../../src/restore/restore-sink.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import { collect, parseSse } from '../helpers/sse-client.ts';
import { anthropicSse, chatSse, responsesSse } from '../helpers/wire.ts';

const PLAIN = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const set = testSet({ PLAIN });
const P = ph(set, PLAIN);

/** Restores a call's placeholders when its arguments contain "ok" (decided on the whole call only). */
function toySink(): { sink: RestoreSink; calls: SinkCall[] } {
  const calls: SinkCall[] = [];
  const sink: RestoreSink = {
    guarding: true,
    holds: true,
    decide(call) {
      calls.push({ ...call, raw: Buffer.from(call.raw) });
      if (!call.raw.includes('ok')) return [];
      const edits = [];
      for (let i = call.raw.indexOf(P); i !== -1; i = call.raw.indexOf(P, i + 1)) edits.push({ start: i, end: i + PLACEHOLDER_LENGTH, bytes: Buffer.from(PLAIN) });
      return edits;
    },
    withhold: () => undefined,
  };
  return { sink, calls };
}

describe('restore sink seam', () => {
  const cases: Array<[string, (r: Parameters<typeof anthropicSse>[0]) => string, StreamAdapter]> = [
    ['anthropic', anthropicSse, anthropicMessages],
    ['chat', chatSse, openaiChat],
    ['responses', responsesSse, openaiResponses],
  ];
  for (const [name, write, adapter] of cases) {
    it(`${name}: the sink decides each whole call; text is restored; the events keep their number and order`, () => {
      for (const [input, want] of [
        [{ cmd: `curl ${P}`, v: 'ok' }, PLAIN],
        [{ cmd: `curl ${P}`, v: 'no' }, P],
      ] as const) {
        const args = JSON.stringify(input);
        for (const split of splits(3)) {
          const { sink, calls } = toySink();
          const stream = write({ text: `see ${P}`, tool: { name: 'bash', input }, pieceSize: 1 });
          const out = runThrough(() => createSseRestorer(set, adapter, createRestoreStats(), { maxEventBytes: 1 << 20, sink }), Buffer.from(stream), split).toString();
          expect(parseSse(out).map((e) => e.event)).toEqual(parseSse(stream).map((e) => e.event));
          const c = collect(out);
          const values = [...c.streams.values()];
          expect(values).toContain(`see ${PLAIN}`);
          expect(values).toContain(args.replace(P, want));
          const decided = calls.filter((k) => !k.copy);
          expect(decided.map((k) => k.raw.toString()), split.name).toEqual([JSON.stringify(args).slice(1, -1)]);
          expect(decided[0]?.tool.name).toBe('bash');
          for (const copy of c.copies) if (copy.startsWith('{')) expect(copy).toBe(args.replace(P, want));
        }
      }
    });
  }
});
