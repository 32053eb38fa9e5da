// deploy/Dockerfile as text: what the image test (deploy/test-image.sh, needs Docker) cannot guard on
// every run — the base, the Node version CI uses, no download URL, a non-root user, the HEALTHCHECK and
// entrypoint, and a .dockerignore that lets in exactly what the Dockerfile copies.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const dockerfile = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));

describe('deploy/Dockerfile', () => {
  it('builds FROM debian:bookworm-slim in every stage, with the Node version CI runs', () => {
    const froms = instructions.filter((l) => l.startsWith('FROM '));
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toMatch(/^FROM debian:bookworm-slim( AS \w+)?$/);
    const ciNode = /^NODE_MAIN=(\S+)/m.exec(readFileSync(join(ROOT, '.ci/run'), 'utf8'))?.[1];
    expect(dockerfile).toContain(`ARG NODE_VERSION=${ciNode}`);
    expect(dockerfile).toContain(`ARG PNPM_VERSION=${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string }).packageManager.split('@')[1]}`);
  });

  it('fetches nothing by URL: Node comes through npm from its registry package', () => {
    // Only loopback (the HEALTHCHECK's default URL).
    expect(dockerfile).not.toMatch(/https?:\/\/(?!127\.0\.0\.1[:/])/);
    expect(instructions.join('\n')).not.toMatch(/\b(curl|wget)\b|^ADD /m);
    expect(dockerfile).toMatch(/npm pack --silent "\$pkg@\$NODE_VERSION"/);
  });

  it('runs as uid 10001 with FICTA_HOME on a volume, a node HEALTHCHECK, ENTRYPOINT ficta', () => {
    const final = instructions.slice(instructions.map((l) => l.startsWith('FROM ')).lastIndexOf(true));
    expect(final).toContain('USER 10001:10001');
    expect(final.some((l) => /^ENV FICTA_HOME=\/var\/lib\/ficta\b/.test(l))).toBe(true);
    expect(final).toContain('VOLUME ["/var/lib/ficta"]');
    expect(final.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/CMD \["node", "-e", "fetch\(process\.env\.FICTA_HEALTHCHECK_URL\)/);
    expect(final).toContain('ENTRYPOINT ["ficta"]');
    expect(final.find((l) => l.startsWith('CMD '))).toBe('CMD ["serve", "--host", "0.0.0.0", "--port", "8787"]');
    // Nothing of the build stage's tools in the image: only node, the app and its production modules.
    expect(final.filter((l) => l.startsWith('COPY --from=build')).map((l) => l.split(' ')[2])).toEqual(['/opt/node/bin/node', '/opt/node/LICENSE', '/opt/ficta']);
  });

  it('.dockerignore lets in exactly what the Dockerfile copies from the context', () => {
    const allowed = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1).replace(/\/$/, ''))
      .sort();
    const copied = instructions
      .filter((l) => l.startsWith('COPY ') && !l.startsWith('COPY --from'))
      .flatMap((l) => l.split(/\s+/).slice(1, -1))
      .map((p) => p.replace(/\/$/, ''))
      .sort();
    expect(copied).toEqual(allowed);
  });
});
