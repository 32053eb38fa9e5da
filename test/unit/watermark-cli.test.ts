import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { proseDocument } from '../../fixtures/watermark/corpus.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { openRegistry } from '../../src/watermark/registry.ts';
import { stripFramesFromText } from '../../src/watermark/strip.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'ficta-wm-cli-'));
  dirs.push(d);
  return d;
}

async function ficta(args: string[], home: string, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let errText = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (errText += d));
  const io: CliIo = { stdout, stderr, stdin: Readable.from([Buffer.from(stdin)]), env: { FICTA_HOME: home, PATH: process.env.PATH } };
  const code = await main(args, io);
  return { code, stdout: out, stderr: errText };
}

describe('ficta watermark / attribute', () => {
  const doc = proseDocument(120_000, 61);

  it('embeds, detects and attributes a document shared by hand, then purges nothing recent', async () => {
    const home = tmp();
    const src = join(home, 'report.md');
    const out = join(home, 'report.marked.md');
    writeFileSync(src, doc);
    const embed = await ficta(['watermark', 'embed', src, '-o', out, '--session', 'shared-with-bob'], home);
    expect(embed.code).toBe(0);
    expect(embed.stderr).toMatch(/watermark: \d+ frame\(s\), symbols [\d,]+; session shared-with-bob/);
    const marked = readFileSync(out, 'utf8');
    expect(stripFramesFromText(marked)).toBe(doc);
    expect(statSync(join(home, 'watermark.key')).mode & 0o777).toBe(0o600);

    const detect = await ficta(['watermark', 'detect', out], home);
    expect(detect.code).toBe(0);
    expect(detect.stdout).toMatch(/^mark: [0-9a-f]{16} \(\d+ of \d+ symbols agree\)$/m);

    const excerpt = join(home, 'excerpt.txt');
    writeFileSync(excerpt, stripFramesFromText(marked).slice(30_000, 60_000));
    const attr = await ficta(['attribute', excerpt], home);
    expect(attr.code).toBe(0);
    expect(attr.stdout).toMatch(/blind decode: not enough symbols \(0 of 8\)/);
    expect(attr.stdout).toMatch(/1\. session shared-with-bob: match/);
    expect(attr.stdout).toMatch(/embed-[0-9a-f]{12}\s+manual -\s+cli:watermark-embed/);

    const json = JSON.parse((await ficta(['attribute', out, '--json'], home)).stdout);
    expect(json.blind.sessions).toEqual(['shared-with-bob']);
    expect(json.candidates[0]).toMatchObject({ sessionId: 'shared-with-bob', verdict: 'confirmed' });

    const purge = await ficta(['attribute', '--purge'], home);
    expect(purge).toMatchObject({ code: 0 });
    expect(purge.stdout).toMatch(/0 request\(s\), 0 document\(s\), 0 session\(s\)/);
  });

  it('reads stdin with "-" and reports "not enough symbols" for a short excerpt', async () => {
    const home = tmp();
    const embedded = await ficta(['watermark', 'embed', '-'], home, proseDocument(30_000, 62));
    expect(embedded.code).toBe(0);
    const detect = await ficta(['watermark', 'detect', '-'], home, embedded.stdout);
    expect(detect.stdout).toMatch(/mark: not enough symbols \([1-7] of 8\)/);
  });

  it('purges rows older than the retention', async () => {
    const home = tmp();
    const src = join(home, 'a.md');
    writeFileSync(src, proseDocument(10_000, 63));
    await ficta(['watermark', 'embed', src, '-o', join(home, 'b.md')], home);
    const reg = openRegistry(home);
    if (!reg.ok) throw reg.error;
    // A cut-off just after now stands in for rows older than the retention.
    const counts = reg.value.purge(Date.now() + 1);
    reg.value.close();
    expect(counts).toEqual({ sightings: 1, documents: 1, sessions: 1 });
  });

  it('exits 2 on usage errors and 1 with one line when the registry is missing', async () => {
    const home = tmp();
    expect((await ficta(['watermark', 'frobnicate'], home)).code).toBe(2);
    expect((await ficta(['attribute'], home)).code).toBe(2);
    writeFileSync(join(home, 'x.txt'), 'hello');
    const missing = await ficta(['attribute', join(home, 'x.txt')], home);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^ficta: watermark: cannot read .*watermark\.key: ENOENT\n$/);
  });
});
