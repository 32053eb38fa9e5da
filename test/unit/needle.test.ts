// A needle searched from its tail finds exactly what Buffer#indexOf finds, at every start offset.

import { describe, expect, it } from 'vitest';
import { indexOfNeedle, needle } from '../../src/util/needle.ts';
import { mulberry32 } from '../../src/util/prng.ts';

describe('needle', () => {
  it('agrees with Buffer#indexOf on random text full of partial matches', () => {
    const rand = mulberry32(5);
    const texts = ['tool_use"', '"tool_calls"', '"functionCall"', '_call"', 'abc', 'x', '"', 'a"b', 'Zq'];
    for (const t of texts) {
      const n = needle(t);
      const pieces = [t, t.slice(0, -1), t.slice(1), 'tool', '"', ' ', '_', 'a', t.toUpperCase()];
      for (let round = 0; round < 200; round++) {
        let s = '';
        while (s.length < 120) s += pieces[Math.floor(rand() * pieces.length)]!;
        const buf = Buffer.from(s, 'latin1');
        for (let from = 0; from <= buf.length; from += 7) expect(indexOfNeedle(buf, n, from), `${t} in ${s} from ${from}`).toBe(buf.indexOf(n.bytes, from));
      }
    }
  });

  it('searches from the first byte that is not a lower-case letter, quote or space', () => {
    expect(needle('tool_use"').skip).toBe(4);
    expect(needle('"functionCall"').skip).toBe(9);
    expect(needle('docum').skip).toBe(0);
    expect(indexOfNeedle(Buffer.from('"tool_use"'), needle('tool_use"'))).toBe(1);
    expect(indexOfNeedle(Buffer.from('_use" tool_use'), needle('tool_use"'))).toBe(-1);
  });
});
