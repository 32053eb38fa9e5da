// The proxy under test: a real ficta on loopback (test/helpers/ficta-server.ts) whose registered values
// change from case to case through an in-memory secret source (or its env file) and a registry reload,
// with the placeholder key read back from FICTA_HOME so the oracle can derive placeholders itself.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFicta, type TestFicta } from '../../helpers/ficta-server.ts';
import type { SecretEntry, SecretSource } from '../../../src/secrets/types.ts';

export interface FuzzProxy {
  url: string;
  /** The placeholder key ficta derives placeholders with. */
  key: Buffer;
  /** Every log line so far (slice it per case). */
  logs: string[];
  /** Base path of the OpenAI upstream (the Anthropic one has none). */
  openaiBasePath: string;
  /** Registers exactly these entries (and clears the env file). */
  setSecrets(entries: ReadonlyArray<{ name: string; value: string }>): Promise<void>;
  /** Registers exactly what this dotenv text defines (and clears the in-memory entries); false when ficta refuses the file. */
  setEnvFile(text: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The placeholder key every fuzz proxy uses, so a replayed case sends the very same bytes. */
export const FUZZ_PLACEHOLDER_KEY = Buffer.from('f0'.repeat(16) + '0123456789abcdef'.repeat(2), 'hex');

/** Starts ficta in front of `upstream` with watermarking off (it rewrites request bodies by design). */
export async function startFuzzProxy(upstream: string): Promise<FuzzProxy> {
  let entries: SecretEntry[] = [];
  const source: SecretSource = { kind: 'fuzz', load: async () => ({ ok: true, value: entries }) };
  const openaiBasePath = '/base';
  const home = mkdtempSync(join(tmpdir(), 'ficta-fuzz-'));
  writeFileSync(join(home, 'placeholder.key'), `${FUZZ_PLACEHOLDER_KEY.toString('hex')}\n`, { mode: 0o600 });
  const proxy: TestFicta = await startFicta({
    home,
    upstream,
    secrets: {},
    sources: [source],
    config: {
      upstreams: { anthropic: upstream, openai: `${upstream}${openaiBasePath}`, gemini: upstream, ollama: upstream },
      watermark: { enabled: false },
      limits: { maxBodyBytes: 8 * 1024 * 1024, maxDecodedBytes: 8 * 1024 * 1024, headersTimeoutMs: 20_000 },
    },
  });
  const envFile = join(proxy.home, 'test.env');
  // Read back what ficta uses: the oracle derives placeholders from this, never from ficta's code.
  const key = Buffer.from(readFileSync(join(proxy.home, 'placeholder.key'), 'utf8').trim(), 'hex');
  if (!key.equals(FUZZ_PLACEHOLDER_KEY)) throw new Error('fuzz: ficta did not keep the placeholder key it was given');
  const reload = async (): Promise<boolean> => (await proxy.ficta.registry.reload()).kind === 'ready';
  return {
    url: proxy.url,
    key,
    logs: proxy.logs,
    openaiBasePath,
    async setSecrets(list) {
      entries = list.map((e) => ({ name: e.name, value: e.value, source: 'fuzz' }));
      writeFileSync(envFile, '');
      if (!(await reload())) throw new Error('fuzz: the registry did not reload');
    },
    async setEnvFile(text) {
      entries = [];
      writeFileSync(envFile, text, { mode: 0o600 });
      return reload();
    },
    async close() {
      await proxy.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
