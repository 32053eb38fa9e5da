import { describe, expect, it } from 'vitest';
import { parseDotenv } from '../../src/secrets/dotenv.ts';

function parse(text: string): Record<string, string> {
  const r = parseDotenv(text);
  if (!r.ok) throw r.error;
  return Object.fromEntries(r.value.map((e) => [e.name, e.value]));
}

describe('parseDotenv', () => {
  it('reads plain, exported and spaced assignments', () => {
    expect(parse('A=1\nexport B=two\n  C = three  \n')).toEqual({ A: '1', B: 'two', C: 'three' });
  });

  it('skips comments and blank lines and strips inline comments after unquoted values', () => {
    expect(parse('# header\n\nA=value # note\nB=has#hash\n')).toEqual({ A: 'value', B: 'has#hash' });
  });

  it('keeps single-quoted values literal and unescapes double-quoted ones', () => {
    expect(parse(`A='x\\ny $HOME'\nB="x\\ny \\"q\\" \\\\ \\$HOME"\n`)).toEqual({ A: 'x\\ny $HOME', B: 'x\ny "q" \\ $HOME' });
  });

  it('reads multi-line quoted values and keeps counting lines after them', () => {
    const text = 'KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\nNEXT=1\nbad line\n';
    const r = parseDotenv(text, 'x.env');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe('secrets: x.env: line 5: expected NAME=value');
    expect(parse('KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\nNEXT=1\n')).toEqual({ KEY: '-----BEGIN KEY-----\nabc\n-----END KEY-----', NEXT: '1' });
  });

  it('handles CRLF files, a BOM, backticks and empty values', () => {
    expect(parse('\ufeffA=1\r\nB=`tick "x"`\r\nC=\r\nD=""\r\n')).toEqual({ A: '1', B: 'tick "x"', C: '', D: '' });
  });

  it('reports an unterminated quote by line without quoting the value', () => {
    const r = parseDotenv('A=1\nSECRET="sk-live-abcdef\n', 'a.env');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('FICTA_SECRETS_INVALID');
      expect(r.error.message).toContain('line 2');
      expect(r.error.message).not.toContain('sk-live');
    }
  });

  it('keeps every assignment of a name, in order (as secrets, both values matter)', () => {
    const r = parseDotenv('A=first-value\nB=x\nA=second-value\n');
    if (!r.ok) throw r.error;
    expect(r.value.map((e) => [e.name, e.value, e.line])).toEqual([['A', 'first-value', 1], ['B', 'x', 2], ['A', 'second-value', 3]]);
  });
});
