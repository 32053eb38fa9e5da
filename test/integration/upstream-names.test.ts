// Named upstreams in any case (issue 26): `--upstream OpenRouter=URL` and `FICTA_UPSTREAM_Groq=URL` start
// `ficta serve`, routed at their lowercased names, redacting like any route; what cannot be a name is refused.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { testDir } from '../helpers/temp-dir.ts';

const SECRET = 'named-upstream-secret-value-91';
let up: MockUpstream | undefined;
afterEach(async () => {
  await up?.close();
  up = undefined;
});

describe('named upstreams in any case', () => {
  it('from the flag and the environment are routed at the lowercased name', async () => {
    const dir = testDir('ficta-names-');
    const envFile = join(dir, 'app.env');
    writeFileSync(envFile, `API_SECRET=${SECRET}\n`);
    up = await createMockUpstream({ secrets: [SECRET] });
    const serve = await startServe(['--port', '0', '--env-file', envFile, '--upstream', `OpenRouter=${up.url}/base`], { FICTA_HOME: dir, FICTA_UPSTREAM_Groq: up.url });
    try {
      for (const path of ['/openrouter/api/v1/chat/completions', '/groq/v1/chat/completions']) {
        const res = await fetch(`${serve.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `use ${SECRET}` }] }) });
        expect(res.status, path).toBe(200);
        expect(await res.text()).toContain(SECRET);
      }
      expect(up.requests.map((r) => r.url)).toEqual(['/base/api/v1/chat/completions', '/v1/chat/completions']);
      expect(up.leaks).toEqual([]);
      expect((await fetch(`${serve.url}/OpenRouter/api/v1/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(404);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('refuses only what cannot be a name (exit 2 from the flag, 1 from the environment)', async () => {
    const flag = await runCli(['serve', '--port', '0', '--upstream', 'Open.Router=http://127.0.0.1:9']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--upstream: a name is 1 to 63 letters, digits, "-" or "_", starting with a letter or digit (routed lowercased)');
    const env = await runCli(['serve', '--port', '0'], { env: { 'FICTA_UPSTREAM_V1BETA': 'http://127.0.0.1:9' } });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('config: FICTA_UPSTREAM_V1BETA: the name "v1beta" collides with the built-in route /v1beta/');
  });
});
