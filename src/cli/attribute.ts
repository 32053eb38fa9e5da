// `ficta attribute FILE [--json]` says which session and request sent a leaked text, with evidence and
// a confidence; `ficta attribute --purge` deletes registry rows older than the retention.

import { resolveHome } from '../config/home.ts';
import { loadConfig } from '../config/load.ts';
import { attributeText, type Attribution, type Candidate } from '../watermark/attribute.ts';
import { parseWatermarkConfig } from '../watermark/config.ts';
import { deriveKeys, readKeyFile } from '../watermark/key.ts';
import { RS_K } from '../watermark/reed-solomon.ts';
import { openRegistry } from '../watermark/registry.ts';
import { formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { readText } from './watermark.ts';

export const spec = {
  name: 'attribute',
  usage: 'attribute FILE [--json]\nattribute --purge [--json]',
  summary: 'say which session and request sent a leaked text',
  description: `FILE is a leaked text (- reads stdin): blind decode of the in-band mark when 8 symbols survive,
otherwise registry candidates by fingerprint, confirmed or contradicted by the symbols observed.`,
  options: {
    json: { type: 'boolean', help: 'machine-readable output' },
    purge: { type: 'boolean', help: 'delete registry rows older than watermark.retentionDays (default 90)' },
  },
  positionals: { name: 'FILE', max: 1, complete: 'file' },
} satisfies CommandSpec;

const DAY_MS = 86_400_000;

/** Runs `ficta attribute …` and returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { help, values, positionals } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  const home = resolveHome(io.env);
  if (values.purge === true) {
    if (positionals.length > 0) throw usageError(spec, '--purge takes no FILE');
    return purge(home, io, values.json === true);
  }
  if (positionals.length !== 1) throw usageError(spec, 'expected FILE (or --purge)');
  const text = await readText(positionals[0]!, io);
  const key = readKeyFile(home);
  if (!key.ok) throw key.error;
  const registry = openRegistry(home, { readonly: true });
  if (!registry.ok) throw registry.error;
  try {
    const result = attributeText(text, registry.value, deriveKeys(key.value));
    io.stdout.write(values.json === true ? `${JSON.stringify(result, null, 2)}\n` : formatAttribution(result));
  } finally {
    registry.value.close();
  }
  return 0;
}

function purge(home: string, io: CliIo, json: boolean): number {
  const config = loadConfig({ env: io.env });
  if (!config.ok) throw config.error;
  const wm = parseWatermarkConfig((config.value as { watermark?: unknown }).watermark);
  if (!wm.ok) throw wm.error;
  const registry = openRegistry(home);
  if (!registry.ok) throw registry.error;
  try {
    const before = Date.now() - wm.value.retentionDays * DAY_MS;
    const counts = registry.value.purge(before);
    io.stdout.write(
      json
        ? `${JSON.stringify({ before: new Date(before).toISOString(), ...counts })}\n`
        : `purged rows older than ${new Date(before).toISOString()}: ${counts.sightings} request(s), ${counts.documents} document(s), ${counts.sessions} session(s)\n`,
    );
  } finally {
    registry.value.close();
  }
  return 0;
}

/** Human-readable attribution. */
export function formatAttribution(a: Attribution): string {
  const lines: string[] = [];
  const symbols = a.symbols.map((s) => s.index).join(',');
  lines.push(`leaked text: ${a.queryFingerprints} fingerprints, ${a.frames} frame(s)${a.frames > 0 ? ` (symbols ${symbols})` : ''}${a.rejectedFrames > 0 ? `, ${a.rejectedFrames} rejected` : ''}`);
  if (a.blind !== undefined) {
    lines.push(`blind decode: mark ${a.blind.mark} (${a.blind.agreeing} of ${a.blind.observed} symbols agree) → ${a.blind.sessions.length > 0 ? `session ${a.blind.sessions.join(', ')}` : 'no registered session'}`);
  } else {
    lines.push(`blind decode: not enough symbols (${a.symbols.length} of ${RS_K})`);
  }
  const shown = a.candidates.filter((c) => c.verdict !== 'weak');
  if (shown.length === 0) lines.push('', 'no match in the registry');
  shown.forEach((c, i) => lines.push('', ...formatCandidate(c, i + 1)));
  const weak = a.candidates.length - shown.length;
  if (weak > 0) lines.push('', `${weak} weak candidate(s) share a little text only (see --json)`);
  return `${lines.join('\n')}\n`;
}

function formatCandidate(c: Candidate, n: number): string[] {
  const e = c.evidence;
  const out = [`${n}. session ${c.sessionId}: ${c.verdict} (confidence ${c.confidence.toFixed(3)})`];
  const parts = [`${e.sharedFingerprints}/${e.queryFingerprints} fingerprints shared (containment ${e.containment}, ${Math.round(e.coverage * 100)} % of the document)`];
  parts.push(`symbols ${e.symbolsAgreeing} agree / ${e.symbolsDisagreeing} disagree`);
  if (e.markDecoded) parts.push('blind-decoded mark is this session’s');
  if (c.verdict === 'confirmed') parts.push(`false-match bound ${e.falseMatchBound.toExponential(1)}`);
  out.push(`   evidence: ${parts.join('; ')}`);
  if (c.document !== undefined) out.push(`   document: ${c.document.bytes} bytes, ${c.document.frames} frame(s), first sent ${c.document.firstSeen}, last ${c.document.lastSeen}`);
  if (c.requests.total > 0) {
    out.push(`   requests (${c.requests.total}):`);
    for (const s of c.requests.latest) out.push(`     ${s.time}  ${s.requestId}  ${s.provider} ${s.model ?? '-'}  ${s.route}`);
  }
  return out;
}
