// A separate process for the vault integration tests (node --import tsx test/integration/vault-child.ts MODE …):
// concurrent adds, an import killed mid-transaction, and a watching source that must not keep Node alive.

import { writeSync } from 'node:fs';
import { readKeyFile } from '../../src/vault/key-file.ts';
import { createVaultSecretSource } from '../../src/vault/source.ts';
import { unlockVault } from '../../src/vault/open.ts';

const [mode, path, keyPath, ...rest] = process.argv.slice(2);
if (mode === undefined || path === undefined || keyPath === undefined) throw new Error('usage: vault-child MODE PATH KEYFILE …');

const key = readKeyFile(keyPath);
if (!key.ok) throw key.error;
const unlocked = await unlockVault(path, { kind: 'key-file', key: key.value, path: keyPath });
if (!unlocked.ok) {
  writeSync(2, `${unlocked.error.code}\n`);
  process.exit(3);
}
const vault = unlocked.value;

/** Writes a line synchronously, so the parent sees it while this process is still inside a transaction. */
const say = (line: string): void => { writeSync(1, `${line}\n`); };

if (mode === 'add') {
  // add PREFIX COUNT: COUNT separate transactions, as COUNT `ficta vault add` runs would make.
  const [prefix = 'P', count = '1'] = rest;
  for (let i = 0; i < Number(count); i++) {
    const r = vault.add(`${prefix}_${i}`, `value-${prefix}-${i}-padding`, { source: 'child' });
    if (!r.ok) { writeSync(2, `${r.error.code}: ${r.error.message}\n`); process.exit(4); }
  }
  say(`done ${count}`);
} else if (mode === 'import') {
  // import COUNT STOP: one import of COUNT entries; STOP=during blocks inside the transaction at 75 %,
  // STOP=after blocks after the commit — either way the parent kills this process with SIGKILL there.
  const [count = '1000', stop = 'during'] = rest;
  const total = Number(count);
  const items = Array.from({ length: total }, (_, i) => ({ name: `IMPORTED_${i}`, value: `imported-value-${i}-${'x'.repeat(1000)}`, source: 'file:big.env' }));
  const block = (): void => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30_000); };
  let blocked = false;
  const r = vault.import(items, {
    onProgress: (done) => {
      if (stop === 'during' && !blocked && done >= total * 0.75) { blocked = true; say('inside'); block(); }
    },
  });
  if (!r.ok) { writeSync(2, `${r.error.code}\n`); process.exit(4); }
  say('committed');
  if (stop === 'after') block();
} else if (mode === 'stress') {
  // stress ADDS IMPORT: ADDS separate adds and one import of IMPORT entries in this one process, leaving
  // every statement to the garbage collector (Node ≥ 24.19 aborted finalising better-sqlite3 < 13 ones).
  const [adds = '3000', imports = '1000'] = rest;
  for (let i = 0; i < Number(adds); i++) {
    const r = vault.add(`STRESS_${i}`, `stress-value-${i}-${'y'.repeat(64)}`, { source: 'child' });
    if (!r.ok) { writeSync(2, `${r.error.code}: ${r.error.message}\n`); process.exit(4); }
  }
  const items = Array.from({ length: Number(imports) }, (_, i) => ({ name: `STRESS_IMPORT_${i}`, value: `stress-import-${i}-${'z'.repeat(200)}`, source: 'file:stress.env' }));
  const r = vault.import(items);
  if (!r.ok) { writeSync(2, `${r.error.code}\n`); process.exit(4); }
  vault.close();
  say('done');
} else if (mode === 'watch') {
  // A source that watches and is never closed: the process must still exit on its own (unref'd timer).
  const source = createVaultSecretSource(vault, { pollIntervalMs: 10 });
  source.watch?.(() => undefined);
  say('watching');
} else {
  throw new Error(`unknown mode ${mode}`);
}
