// Vault benchmarks: unlock without the KDF at 1k/10k secrets (target ≤ 200 ms at 10k), adding one secret to
// a 10k vault (≤ 5 ms), Argon2id at the INTERACTIVE and MODERATE presets, and RSS of a fresh process after
// unlocking 10k secrets with a MODERATE passphrase (≤ 150 MB), against Argon2id run in-thread.
// Run: node --import tsx bench/vault.bench.ts

import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { createKdfParams, deriveKek, type VaultCredential } from '../src/vault/kdf.ts';
import { argon2id, initSeal } from '../src/vault/seal.ts';
import { createVaultSecretSource } from '../src/vault/source.ts';
import { createVault, unlockVault } from '../src/vault/open.ts';

const SECRET_COUNTS = [1_000, 10_000];
const RSS_RUNS = 3;
const KEY_FILE: VaultCredential = { kind: 'key-file', key: Buffer.alloc(32, 0x11), path: 'bench.key' };
const PASSPHRASE = 'benchmark passphrase, not a secret';

/** Secret-shaped values of 40 characters with fixed content, named like real variables. */
function secrets(n: number): Array<{ name: string; value: string; source: string }> {
  return Array.from({ length: n }, (_, i) => ({ name: `BENCH_SECRET_${i}`, value: `sk-bench-${i.toString(36).padStart(8, '0')}-${'q'.repeat(22)}`, source: 'file:bench.env' }));
}

async function buildVault(path: string, n: number, credential: VaultCredential, kdf: 'min' | 'moderate' = 'min'): Promise<void> {
  const v = await createVault(path, credential, { kdf });
  if (!v.ok) throw v.error;
  const r = v.value.import(secrets(n));
  if (!r.ok || r.value.added.length !== n) throw new Error('bench: import failed');
  v.value.close();
}

function p50(bench: Bench, name: string): { p50: number; p99: number; samples: number } {
  const result = bench.getTask(name)?.result;
  if (result === undefined || !('latency' in result)) throw new Error(`bench: ${name} has no result`);
  return { p50: result.latency.p50, p99: result.latency.p99, samples: result.latency.samplesCount };
}

/** Child mode: unlock the 10k MODERATE vault, load it as the proxy would, print RSS in MB. */
async function rssChild(path: string, inline: boolean): Promise<void> {
  if (inline) {
    // What the proxy would keep if Argon2id ran on its own thread: libsodium's heap grows and stays.
    await initSeal();
    argon2id(Buffer.from(PASSPHRASE), Buffer.alloc(16), 3, 256 * 1024 * 1024);
  }
  const v = await unlockVault(path, { kind: 'passphrase', passphrase: PASSPHRASE });
  if (!v.ok) throw v.error;
  const source = createVaultSecretSource(v.value);
  const loaded = await source.load();
  if (!loaded.ok || loaded.value.length !== 10_000) throw new Error('bench: child load failed');
  await new Promise((r) => setTimeout(r, 200)); // let the terminated worker's memory go back
  const m = process.memoryUsage();
  console.log(JSON.stringify({ rssMB: m.rss / 1048576, heapMB: m.heapUsed / 1048576, externalMB: m.external / 1048576 }));
  source.close();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ficta-vault-bench-'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const rows: Array<Record<string, string | number>> = [];

    for (const n of SECRET_COUNTS) {
      const path = join(dir, `vault-${n}.db`);
      await buildVault(path, n, KEY_FILE);
      // Correct before timed: every secret comes back.
      const check = await unlockVault(path, KEY_FILE);
      if (!check.ok) throw check.error;
      const entries = check.value.entries();
      if (!entries.ok || entries.value.length !== n) throw new Error('bench: wrong unlock result');
      check.value.close();

      const unlock = new Bench({ time: 0, iterations: 10, warmupIterations: 2 });
      unlock.add('unlock', async () => {
        const v = await unlockVault(path, KEY_FILE);
        if (!v.ok) throw v.error;
        const e = v.value.entries();
        if (!e.ok || e.value.length !== n) throw new Error('bench: unlock lost secrets');
        v.value.close();
      });
      await unlock.run();

      const held = await unlockVault(path, KEY_FILE);
      if (!held.ok) throw held.error;
      let k = 0;
      const add = new Bench({ time: 0, iterations: 200, warmupIterations: 10 });
      add.add('add', () => {
        const r = held.value.add(`ADDED_${k++}`, `added-bench-value-${k}`);
        if (!r.ok || r.value !== 'added') throw new Error('bench: add failed');
      });
      await add.run();
      held.value.close();

      const u = p50(unlock, 'unlock');
      const a = p50(add, 'add');
      rows.push({ secrets: n, 'unlock p50 ms': u.p50.toFixed(1), 'unlock p99 ms': u.p99.toFixed(1), 'unlock n': u.samples,
        'add p50 ms': a.p50.toFixed(2), 'add p99 ms': a.p99.toFixed(2), 'add n': a.samples });
    }

    const kdfRows: Array<Record<string, string | number>> = [];
    for (const preset of ['interactive', 'moderate'] as const) {
      const params = createKdfParams('passphrase', preset);
      const kdf = new Bench({ time: 0, iterations: 3, warmupIterations: 0 });
      kdf.add(preset, async () => {
        const r = await deriveKek({ kind: 'passphrase', passphrase: PASSPHRASE }, params);
        if (!r.ok || r.value.length !== 32) throw new Error('bench: kdf failed');
      });
      await kdf.run();
      const s = p50(kdf, preset);
      kdfRows.push({ preset, ops: params.ops, 'mem MiB': params.mem / 1048576, 'p50 s (worker incl.)': (s.p50 / 1000).toFixed(2), n: s.samples });
    }

    const rssPath = join(dir, 'vault-10k-moderate.db');
    await buildVault(rssPath, 10_000, { kind: 'passphrase', passphrase: PASSPHRASE }, 'moderate');
    const rss = (inline: boolean): number[] => Array.from({ length: RSS_RUNS }, () => {
      const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--rss-child', rssPath, inline ? 'inline' : 'worker'], { encoding: 'utf8' });
      return (JSON.parse(out.trim().split('\n').at(-1) as string) as { rssMB: number }).rssMB;
    });
    const worker = rss(false);
    const inline = rss(true);

    let sha = 'unknown';
    try { sha = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim(); } catch { /* not a checkout */ }
    console.log(`vault bench — node ${process.version}, ${cpus()[0]?.model ?? 'cpu?'} ×${cpus().length}, git ${sha}`);
    console.log('unlock = open + unwrap + verify every record and the vault MAC + decode (key-file vault: no Argon2id); add = one transaction with fsync, vault held open');
    console.table(rows);
    console.log('Argon2id (crypto_pwhash) per derivation, including the worker thread start');
    console.table(kdfRows);
    console.log(`RSS of a fresh process after unlocking 10k secrets (MODERATE passphrase) and loading them as a source, median of ${RSS_RUNS}`);
    console.table([
      { argon2id: 'worker (shipped)', 'RSS MB median': median(worker).toFixed(1), runs: worker.map((x) => x.toFixed(0)).join(' / ') },
      { argon2id: 'in-thread (contrast)', 'RSS MB median': median(inline).toFixed(1), runs: inline.map((x) => x.toFixed(0)).join(' / ') },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childAt = process.argv.indexOf('--rss-child');
if (childAt !== -1) await rssChild(process.argv[childAt + 1] as string, process.argv[childAt + 2] === 'inline');
else await main();
