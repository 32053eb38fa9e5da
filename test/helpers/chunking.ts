// Feeds bytes through a chunk transform three ways — whole, seeded random chunking, one byte at a
// time — as the house style asks of every stream fixture.

import type { ChunkTransform } from '../../src/restore/body-restorer.ts';
import { mulberry32 } from './mock-upstream.ts';

export type Split = { name: string; chunks: (b: Buffer) => Buffer[] };

export function splits(seeds = 8): Split[] {
  const out: Split[] = [{ name: 'whole', chunks: (b) => [b] }];
  for (let s = 1; s <= seeds; s++) {
    out.push({
      name: `random#${s}`,
      chunks: (b) => {
        const rand = mulberry32(s * 7919);
        const parts: Buffer[] = [];
        let pos = 0;
        while (pos < b.length) {
          const n = 1 + Math.floor(rand() * (s % 2 === 0 ? 7 : 40));
          parts.push(b.subarray(pos, pos + n));
          pos += n;
        }
        return parts;
      },
    });
  }
  out.push({ name: 'bytes', chunks: (b) => [...b].map((x) => Buffer.from([x])) });
  return out;
}

/** Runs `input` through a fresh transform with the given split; returns the concatenated output. */
export function runThrough(make: () => ChunkTransform, input: Buffer, split: Split): Buffer {
  const t = make();
  const out: Buffer[] = [];
  for (const c of split.chunks(input)) out.push(...t.push(Buffer.from(c)));
  out.push(...t.end());
  return Buffer.concat(out);
}
