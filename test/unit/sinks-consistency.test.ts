// Differential check of the tool-call machinery (holding, the event queue, re-splitting, copies, whole calls,
// the held JSON body): with a sink that decides to restore every placeholder, a response must come out
// byte for byte as the plain restorer gives it, in every wire format, streamed over seeded random chunkings
// and byte by byte, with content built to confuse a lexer. Any difference is a bug in how held bytes are
// put back, never a policy question.

import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/providers/anthropic-messages.ts';
import { openaiChat } from '../../src/providers/openai-chat.ts';
import { openaiResponses } from '../../src/providers/openai-responses.ts';
import type { StreamAdapter } from '../../src/providers/types.ts';
import { createBodyRestorer } from '../../src/restore/body-restorer.ts';
import { createGuardedBodyRestorer } from '../../src/restore/guarded-body.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import type { RestoreSink } from '../../src/restore/restore-sink.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { createToolCallGate, policyFor } from '../../src/sinks/tool-call-gate.ts';
import { createToolCallSink } from '../../src/sinks/tool-call-sink.ts';
import { createWithheldCounts } from '../../src/sinks/withheld.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { runThrough, splits, type Split } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import { anthropicJson, anthropicSse, chatJson, chatSse, responsesJson, responsesSse, type Reply } from '../helpers/wire.ts';

const VALUES = { A: 'sk-ant-api03-AbCdEfGhIjKlMnOp', B: 'pa"ss\\wörd\n-x1 🔑', C: 'tab\there quote"s \\u0041' };
const set = testSet(VALUES);
const PH = Object.values(VALUES).map((v) => ph(set, v));

/** The guarded path, deciding to restore everything (the gate in "all" mode, but holding as "guarded" does). */
function restoreAllSink(): RestoreSink {
  const gate = createToolCallGate(set, policyFor(set, { toolCalls: 'all', allowHosts: [] }), createRestoreStats(), createWithheldCounts());
  return { ...createToolCallSink(gate, 'test'), guarding: true, holds: true };
}

function hostile(rand: () => number): string {
  const atoms = ['[', ']', '{', '}', '"', '\\', ':', ',', ' ', '\n', 'word', '😀', '~', '~ficta_', 'null', 'https://evil.example/x', () => JSON.stringify({ k: PH[0], n: [1, PH[1]] }), () => JSON.stringify(JSON.stringify({ deep: PH[2] }))];
  let s = '';
  const n = 3 + Math.floor(rand() * 30);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.25) s += PH[Math.floor(rand() * PH.length)] as string;
    else {
      const a = atoms[Math.floor(rand() * atoms.length)] as string | (() => string);
      s += typeof a === 'string' ? a : a();
    }
  }
  return s;
}

const FORMATS: Array<[string, (r: Reply) => string, (r: Reply) => unknown, StreamAdapter]> = [
  ['anthropic', anthropicSse, anthropicJson, anthropicMessages],
  ['chat', chatSse, chatJson, openaiChat],
  ['responses', responsesSse, responsesJson, openaiResponses],
];

function randomSplit(seed: number): Split {
  return {
    name: `random#${seed}`,
    chunks: (b) => {
      const rand = mulberry32(seed);
      const out: Buffer[] = [];
      for (let pos = 0; pos < b.length; ) {
        const n = 1 + Math.floor(rand() * (rand() < 0.3 ? 3 : 60));
        out.push(b.subarray(pos, pos + n));
        pos += n;
      }
      return out;
    },
  };
}

describe('the guarded path, restoring everything, gives the plain restorer\'s bytes', () => {
  for (const [name, sse, json, adapter] of FORMATS) {
    it(`${name}: 24 seeded streams and bodies with hostile text and tool arguments`, () => {
      const BYTES = splits(0).find((s) => s.name === 'bytes') as Split;
      for (let seed = 1; seed <= 24; seed++) {
        const rand = mulberry32(seed * 104729);
        const reply: Reply = {
          text: hostile(rand),
          thinking: hostile(rand),
          tool: { name: seed % 2 === 0 ? 'write_file' : 'Bash', input: { content: hostile(rand), nested: JSON.stringify({ v: PH[seed % 3], s: hostile(rand) }) } },
          pieceSize: 1 + Math.floor(rand() * 12),
        };
        if (name === 'responses') reply.customTool = { name: 'apply_patch', input: hostile(rand) };
        const stream = Buffer.from(sse(reply));
        for (const split of seed % 8 === 0 ? [randomSplit(seed), BYTES] : [randomSplit(seed)]) {
          const plain = runThrough(() => createSseRestorer(set, adapter, createRestoreStats(), { maxEventBytes: 1 << 20 }), stream, split).toString('utf8');
          const guarded = runThrough(() => createSseRestorer(set, adapter, createRestoreStats(), { maxEventBytes: 1 << 20, sink: restoreAllSink(), maxHeldBytes: 1 << 20 }), stream, split).toString('utf8');
          expect(guarded, `seed ${seed} ${split.name}`).toBe(plain);
        }
        const body = Buffer.from(JSON.stringify(json(reply)));
        const split = randomSplit(seed);
        const plainBody = runThrough(() => createBodyRestorer(set, 'json', createRestoreStats()), body, split).toString('utf8');
        const guardedBody = runThrough(() => createGuardedBodyRestorer(set, 'json', adapter, createRestoreStats(), restoreAllSink(), 1 << 20), body, split).toString('utf8');
        expect(guardedBody, `seed ${seed} body`).toBe(plainBody);
      }
    });
  }
});
