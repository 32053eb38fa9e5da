import { describe, expect, it } from 'vitest';
import { derivePlaceholder, PLACEHOLDER_LENGTH, probePlaceholder } from '../../src/redact/placeholder.ts';

const KEY = Buffer.alloc(32, 1);

describe('placeholders', () => {
  it('are deterministic for a key and differ across keys and values', () => {
    const a = derivePlaceholder(KEY, 'sk-ant-api03-secret-value');
    expect(derivePlaceholder(KEY, 'sk-ant-api03-secret-value')).toBe(a);
    expect(derivePlaceholder(Buffer.alloc(32, 2), 'sk-ant-api03-secret-value')).not.toBe(a);
    expect(derivePlaceholder(KEY, 'sk-ant-api03-secret-valuf')).not.toBe(a);
  });

  it('are JSON-safe, fixed-length and start with the rare byte', () => {
    for (const v of ['x'.repeat(8), 'pa"ss\\wörd\n', '🔑🔑🔑🔑🔑🔑🔑🔑']) {
      const p = derivePlaceholder(KEY, v);
      expect(p).toMatch(/^~ficta_[a-z2-7]{20}$/);
      expect(p.length).toBe(PLACEHOLDER_LENGTH);
      expect(JSON.stringify(p)).toBe(`"${p}"`);
      expect(encodeURIComponent(p)).toBe(p);
    }
  });

  it('are not an unkeyed hash of the value', () => {
    // With an all-zero key the output still depends on the key: a different key gives a different id.
    expect(derivePlaceholder(Buffer.alloc(32, 0), 'abcdefgh')).not.toBe(derivePlaceholder(Buffer.alloc(32, 9), 'abcdefgh'));
  });

  it('probe recognises full, partial, mangled and upper-cased forms', () => {
    const p = derivePlaceholder(KEY, 'abcdefghij');
    const buf = Buffer.from(`x ${p} y`);
    const probe = probePlaceholder(buf, 2, buf.length);
    expect(probe).toEqual({ kind: 'full', id: p.slice(7) });
    expect(probePlaceholder(Buffer.from(p.toUpperCase()), 0, p.length)).toEqual({ kind: 'full', id: p.slice(7) });
    expect(probePlaceholder(Buffer.from(p.slice(0, 10)), 0, 10)).toEqual({ kind: 'partial' });
    expect(probePlaceholder(Buffer.from('~fi'), 0, 3)).toEqual({ kind: 'partial' });
    expect(probePlaceholder(Buffer.from(`${p.slice(0, 12)} ${p.slice(12)}`), 0, 28)).toEqual({ kind: 'mangled' });
    expect(probePlaceholder(Buffer.from('~/.bashrc'), 0, 9)).toEqual({ kind: 'none' });
  });
});
