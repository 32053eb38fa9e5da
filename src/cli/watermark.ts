// `ficta watermark embed|detect`: marks a document shared by hand (and registers it), or reads the
// frames, symbols and mark out of a file.

import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolveHome } from '../config/home.ts';
import { FictaError } from '../errors.ts';
import { detectMarks, type Detection } from '../watermark/detect.ts';
import { applyPlan, planEmbedding } from '../watermark/embed.ts';
import { fingerprintText } from '../watermark/fingerprint.ts';
import { deriveKeys, loadOrCreateKey } from '../watermark/key.ts';
import { RS_K, rsEncode } from '../watermark/reed-solomon.ts';
import { openRegistry } from '../watermark/registry.ts';
import { findSubcommand, formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import type { CliIo } from './io.ts';

const embedSpec = {
  name: 'watermark embed',
  usage: 'watermark embed FILE [-o OUT] [--session ID]',
  summary: 'mark a document you share by hand and register its fingerprints',
  description: 'Marks FILE (- reads stdin) and registers its fingerprints; prints the marked text to stdout, or writes OUT.',
  options: {
    output: { type: 'string', short: 'o', value: 'OUT', complete: 'file', help: 'write the marked text to OUT instead of stdout' },
    session: { type: 'string', value: 'ID', help: 'the session to attribute it to (default: a new manual-… id)' },
  },
  positionals: { name: 'FILE', min: 1, max: 1, complete: 'file' },
} satisfies CommandSpec;

const detectSpec = {
  name: 'watermark detect',
  usage: 'watermark detect FILE [--json]',
  summary: 'frames found, the symbols they carry, and the decoded mark',
  description: 'Reads the invisible frames in FILE (- reads stdin): the symbols they carry, and the decoded mark or "not enough symbols".',
  options: { json: { type: 'boolean', help: 'machine-readable output' } },
  positionals: { name: 'FILE', min: 1, max: 1, complete: 'file' },
} satisfies CommandSpec;

export const spec = {
  name: 'watermark',
  usage: 'watermark <command> [options]',
  summary: 'mark a document shared by hand, or read its marks',
  options: {},
  subcommands: [embedSpec, detectSpec],
} satisfies CommandSpec;

/** Runs `ficta watermark …` and returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  if (sub === undefined) {
    io.stderr.write(formatHelp(spec));
    return EXIT_USAGE;
  }
  const found = findSubcommand(spec, sub);
  return found === embedSpec ? runEmbed(rest, io) : runDetect(rest, io);
}

async function runEmbed(argv: string[], io: CliIo): Promise<number> {
  const { help, values, positionals } = parseCommandLine(embedSpec, argv);
  if (help) {
    io.stdout.write(formatHelp(embedSpec));
    return EXIT_OK;
  }
  const file = positionals[0] as string;
  const text = await readText(file, io);
  const home = resolveHome(io.env);
  const key = loadOrCreateKey(home);
  if (!key.ok) throw key.error;
  const keys = deriveKeys(key.value);
  const sessionId = values.session ?? `manual-${randomBytes(6).toString('hex')}`;
  if (sessionId.trim() === '') throw usageError(embedSpec, '--session must not be empty');
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
  const { help, values, positionals } = parseCommandLine(detectSpec, argv);
  if (help) {
    io.stdout.write(formatHelp(detectSpec));
    return EXIT_OK;
  }
  const text = await readText(positionals[0] as string, io);
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
