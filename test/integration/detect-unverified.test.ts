// Unverified values through the real proxy: a token with its kind's anchor, charset and length whose
// checksum fails (a test fixture, a typo) is redacted and restored in `redact` mode and counted as
// `detected:<kind>:unverified`; in `block` mode it is still redacted, not blocked, while a verified one
// next to it blocks the request.

import { describe, expect, it } from 'vitest';
import { sampleOf } from '../../fixtures/detect/tokens.ts';
import { kindByName } from '../../src/detect/kinds.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { ALL_SECRET_VALUES, startFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream } from '../helpers/mock-upstream.ts';

const rnd = mulberry32(0x0ddba11);
const verified = sampleOf(kindByName('github-classic-pat')!, rnd).secret;
const npm = sampleOf(kindByName('npm-token')!, rnd).secret;
/** The last character changed: the CRC32 no longer holds. */
const broken = (t: string): string => t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A');
const unverifiedGithub = broken(sampleOf(kindByName('github-classic-pat')!, rnd).secret);
const unverifiedNpm = broken(npm);
for (const v of [verified, npm, unverifiedGithub, unverifiedNpm]) ALL_SECRET_VALUES.add(v);

function body(text: string): string {
  return JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: text }] });
}

async function post(url: string, text: string): Promise<Response> {
  return fetch(`${url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' }, body: body(text) });
}

describe('unverified detections', () => {
  it('redact mode: redacted upstream, restored exactly, counted as detected:<kind>:unverified', async () => {
    const up = await createMockUpstream({ secrets: [unverifiedGithub, unverifiedNpm] });
    const proxy = await startFicta({ upstream: up.url });
    try {
      const text = `fixture ${unverifiedGithub} and ${unverifiedNpm}`;
      const res = await post(proxy.url, text);
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).choices[0].message.content).toBe(`ECHO: ${text}`);
      expect(up.leaks).toEqual([]);
      expect(up.requests[0]!.json.messages[0].content).toMatch(/^fixture ~ficta_[a-z0-9]{20} and ~ficta_[a-z0-9]{20}$/);
      const names = proxy.requestLogs().flatMap((l) => Object.keys(l.redactions ?? {}));
      expect(names.sort()).toEqual(['detected:github-classic-pat:unverified', 'detected:npm-token:unverified']);
    } finally {
      await proxy.close();
      await up.close();
    }
  });

  it('block mode: an unverified value is redacted and the request goes through; a verified one blocks', async () => {
    const up = await createMockUpstream({ secrets: [verified, unverifiedGithub, unverifiedNpm] });
    const proxy = await startFicta({ upstream: up.url, config: { detect: { mode: 'block' } } });
    try {
      const text = `fixture ${unverifiedGithub} and ${unverifiedNpm}`;
      const ok = await post(proxy.url, text);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as any).choices[0].message.content).toBe(`ECHO: ${text}`);
      expect(up.requests).toHaveLength(1);
      expect(up.requests[0]!.body.toString('utf8')).toContain('~ficta_');

      const refused = await post(proxy.url, `${text} and the real one ${verified}`);
      expect(refused.status).toBe(403);
      const message = ((await refused.json()) as any).error.message as string;
      expect(message).toContain('detected:github-classic-pat');
      expect(message).not.toContain(':unverified');
      expect(message).not.toContain(verified);
      expect(up.requests).toHaveLength(1);
      expect(up.leaks).toEqual([]);
    } finally {
      await proxy.close();
      await up.close();
    }
  });
});
