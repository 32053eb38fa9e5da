// The hidden prompt against a fake terminal: nothing typed is echoed, raw mode is restored, editing keys
// and escape sequences behave, Ctrl-C and Ctrl-D abort; and credential resolution picks the right source.

import { PassThrough, Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { promptHidden } from '../../src/vault/prompt.ts';
import { resolveCredential, resolveNewCredential } from '../../src/vault/unlock.ts';

class FakeTty extends PassThrough {
  isTTY = true;
  isRaw = false;
  modes: boolean[] = [];
  setRawMode(mode: boolean): this { this.isRaw = mode; this.modes.push(mode); return this; }
}

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return { stream: new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }), text: () => chunks.join('') };
}

async function typed(keys: string[]): Promise<{ result: Awaited<ReturnType<typeof promptHidden>>; shown: string; tty: FakeTty }> {
  const tty = new FakeTty();
  const out = sink();
  const pending = promptHidden('passphrase: ', tty, out.stream);
  for (const k of keys) tty.write(k);
  const result = await pending;
  return { result, shown: out.text(), tty };
}

describe('hidden prompt', () => {
  test('reads a line without echoing it and restores the terminal mode', async () => {
    const { result, shown, tty } = await typed(['hunter2-', 'secret', '\r']);
    expect(result).toEqual({ ok: true, value: 'hunter2-secret' });
    expect(shown).toBe('passphrase: \n');
    expect(tty.modes).toEqual([true, false]);
  });

  test('handles backspace, Ctrl-U, arrow keys, bracketed paste and multi-byte characters split across chunks', async () => {
    const euro = Buffer.from('€');
    const { result } = await typed(['abX\x7f', 'c\x15xyz\x1b[D\x1bOA', '\x1b[200~pasted\x1b[201~', euro.subarray(0, 1) as unknown as string, euro.subarray(1) as unknown as string, '\n']);
    expect(result).toEqual({ ok: true, value: 'xyzpasted€' });
  });

  test('Ctrl-C interrupts (FICTA_INTERRUPTED, exit 130) and Ctrl-D on an empty line aborts', async () => {
    const c = await typed(['abc\x03']);
    expect(!c.result.ok && c.result.error.code).toBe('FICTA_INTERRUPTED');
    expect(c.tty.isRaw).toBe(false);
    const d = await typed(['\x04']);
    expect(!d.result.ok && d.result.error.code).toBe('FICTA_VAULT_PROMPT_ABORTED');
  });
});

describe('credential resolution', () => {
  const quiet = sink().stream;
  const notTty = new PassThrough();

  test('FICTA_VAULT_PASSPHRASE unlocks without prompting; no terminal and no variable is FICTA_VAULT_LOCKED', async () => {
    expect(await resolveCredential('passphrase', { env: { FICTA_VAULT_PASSPHRASE: 'from-env-pass' }, stdin: notTty, stderr: quiet }))
      .toEqual({ ok: true, value: { kind: 'passphrase', passphrase: 'from-env-pass' } });
    const locked = await resolveCredential('passphrase', { env: {}, stdin: notTty, stderr: quiet });
    expect(!locked.ok && locked.error.code).toBe('FICTA_VAULT_LOCKED');
  });

  test('prompts on a terminal when nothing else is given, but not when stdin carries a value', async () => {
    const tty = new FakeTty();
    const pending = resolveCredential('passphrase', { env: {}, stdin: tty, stderr: quiet });
    tty.write('typed-pass\r');
    expect(await pending).toEqual({ ok: true, value: { kind: 'passphrase', passphrase: 'typed-pass' } });
    const refused = await resolveCredential('passphrase', { env: {}, stdin: new FakeTty(), stderr: quiet, mayPrompt: false });
    expect(!refused.ok && refused.error.code).toBe('FICTA_VAULT_LOCKED');
  });

  test('a new passphrase is typed twice; different answers or a short one are refused', async () => {
    const tty = new FakeTty();
    const pending = resolveNewCredential({ env: {}, stdin: tty, stderr: quiet, passphraseVar: 'FICTA_VAULT_PASSPHRASE' });
    tty.write('first-answer\r');
    await new Promise((r) => setImmediate(r));
    tty.write('other-answer\r');
    const r = await pending;
    expect(!r.ok && r.error.code).toBe('FICTA_VAULT_PASSPHRASE_MISMATCH');
    const weak = await resolveNewCredential({ env: { FICTA_VAULT_PASSPHRASE: 'short' }, stdin: notTty, stderr: quiet, passphraseVar: 'FICTA_VAULT_PASSPHRASE' });
    expect(!weak.ok && weak.error.code).toBe('FICTA_VAULT_PASSPHRASE_WEAK');
  });
});
