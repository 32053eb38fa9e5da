// `ficta watermark embed|detect`: marks a document shared by hand (and registers it), or reads the
// frames, symbols and mark out of a file.

import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolveHome } from '../config/home.ts';
import { FictaError } from '../errors.ts';
import { detectMarks, type Detection } from '../watermark/detect.ts';
import { applyPlan, planEmbedding } from '../watermark/embed.ts';
import { fingerprintText } from '../watermark/fingerprint.ts';
import { deriveKeys, loadOrCreateKey } from '../watermark/key.ts';
import { RS_K, rsEncode } from '../watermark/reed-solomon.ts';
import { openRegistry } from '../watermark/registry.ts';
import type { CliIo } from './io.ts';

const USAGE = `usage: ficta watermark <command> [options]

commands:
  embed FILE [-o OUT] [--session ID]
                 mark a document you share by hand and register its fingerprints (FILE - reads stdin);
                 prints the marked text to stdout, or writes OUT
  detect FILE [--json]
                 frames found, the symbols they carry, and the decoded mark or "not enough symbols"
`;

/** Runs `ficta watermark …` and returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  if (sub === 'embed') return runEmbed(rest, io);
  if (sub === 'detect') return runDetect(rest, io);
  if (sub === undefined) {
    io.stderr.write(USAGE);
    return 2;
  }
  throw new FictaError('FICTA_USAGE', `usage: unknown watermark command "${sub}"`);
}

async function runEmbed(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { output: { type: 'string', short: 'o' }, session: { type: 'string' } } });
  const file = onePositional(positionals, 'embed FILE');
  const text = await readText(file, io);
  const home = resolveHome(io.env);
  const key = loadOrCreateKey(home);
  if (!key.ok) throw key.error;
  const keys = deriveKeys(key.value);
  const sessionId = values.session ?? `manual-${randomBytes(6).toString('hex')}`;
  if (sessionId.trim() === '') throw new FictaError('FICTA_USAGE', 'usage: --session must not be empty');
  const mark = keys.sessionMark(sessionId);
  const plan = planEmbedding(text, rsEncode(mark), keys.placementSeed(sessionId, text));
  const marked = applyPlan(text, plan);

  const registry = openRegistry(home);
  if (!registry.ok) throw registry.error;
  try {
    const time = Date.now();
    registry.value.recordSession(sessionId, mark, time);
    registry.value.recordDocument(
      { sessionId, docHash: keys.documentId(text), bytes: Buffer.byteLength(text), frames: plan.frames.length, firstIndex: plan.frames[0]?.index ?? -1, fingerprints: () => fingerprintText(text, keys) },
      { requestId: `embed-${randomBytes(6).toString('hex')}`, time, route: 'cli:watermark-embed', provider: 'manual', model: null },
    );
  } finally {
    registry.value.close();
  }

  if (values.output !== undefined) writeFileSync(values.output, marked);
  else io.stdout.write(marked);
  const what =
    plan.frames.length > 0
      ? `${plan.frames.length} frame(s), symbols ${plan.frames.map((f) => f.index).join(',')}`
      : `no frame (${plan.reason ?? 'none'}): fingerprints only`;
  io.stderr.write(`watermark: ${what}; session ${sessionId}; registered in ${home}\n`);
  return 0;
}

async function runDetect(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const text = await readText(onePositional(positionals, 'detect FILE'), io);
  const d = detectMarks(text);
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(detectionJson(d), null, 2)}\n`);
    return 0;
  }
  io.stdout.write(formatDetection(d));
  return 0;
}

/** The JSON shape of a detection (shared with `ficta attribute --json`). */
export function detectionJson(d: Detection): Record<string, unknown> {
  return {
    frames: d.frames,
    rejectedFrames: d.rejected,
    distinctSymbols: d.symbols.size,
    mark: d.decoded === undefined ? null : Buffer.from(d.decoded.mark).toString('hex'),
    agreeing: d.decoded?.agreeing ?? null,
  };
}

/** Human-readable lines for a detection. */
export function formatDetection(d: Detection): string {
  const lines = [`frames: ${d.frames.length}${d.rejected > 0 ? ` (+${d.rejected} rejected: truncated or failed check)` : ''}`];
  for (const f of d.frames) lines.push(`  line ${f.line}: symbol ${f.index} = 0x${f.value.toString(16).padStart(2, '0')}`);
  lines.push(`symbols: ${d.symbols.size} distinct of 16 (any ${RS_K} recover the mark)`);
  if (d.decoded !== undefined) lines.push(`mark: ${Buffer.from(d.decoded.mark).toString('hex')} (${d.decoded.agreeing} of ${d.decoded.observed} symbols agree)`);
  else lines.push(`mark: not enough symbols (${d.symbols.size} of ${RS_K})`);
  return `${lines.join('\n')}\n`;
}

function onePositional(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new FictaError('FICTA_USAGE', `usage: ficta watermark ${what}`);
  return positionals[0]!;
}

/** Reads FILE (or stdin for "-") as UTF-8 text. */
export async function readText(file: string, io: CliIo): Promise<string> {
  let bytes: Buffer;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const c of io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
      bytes = Buffer.concat(chunks);
    } else bytes = readFileSync(file);
  } catch (cause) {
    throw new FictaError('FICTA_WATERMARK_UNREADABLE', `watermark: cannot read ${file}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause });
  }
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) throw new FictaError('FICTA_WATERMARK_NOT_TEXT', `watermark: ${file} is not UTF-8 text`);
  return text;
}
