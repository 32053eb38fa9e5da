// `ficta detect test NAME STRING…`: whether each string holds a match of the detector NAME (a
// `[[detect.custom]]` rule, a PII kind, `term`, or a built-in kind) as the running proxy would find it,
// and for a custom rule, why not. Strings are numbered, never printed back.

import { loadConfig } from '../config/load.ts';
import { compileRule, matchAt, type CompiledRule, type CustomRule } from '../detect/custom.ts';
import { createDetector } from '../detect/detector.ts';
import { createCredentialFinder } from '../detect/find.ts';
import { configKinds } from '../detect/from-config.ts';
import { KINDS } from '../detect/kinds.ts';
import { boundaryBefore } from '../detect/charset.ts';
import { findSubcommand, formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import type { CliIo } from './io.ts';

const testSpec = {
  name: 'detect test',
  usage: 'detect test NAME STRING… [--config PATH] [--json]',
  summary: 'whether each STRING holds a match of detector NAME, and why not',
  description: `NAME is a [[detect.custom]] rule, a PII kind (payment-card, iban, email), "term" or a built-in kind.
Each string is searched as the proxy would search a request; for a custom rule that does not match, the
first reason is given (prefix, charset and length, suffix, checksum, keyword). Strings are numbered in
the output, never printed. Exit status 0 when every string matches, 1 otherwise.`,
  options: {
    config: { type: 'string', value: 'PATH', complete: 'file', help: 'config file (default FICTA_HOME/config.toml)' },
    json: { type: 'boolean', help: 'one JSON document on stdout' },
  },
  positionals: { name: 'NAME STRING…', min: 2, max: Infinity },
} satisfies CommandSpec;

export const spec = {
  name: 'detect',
  usage: 'detect <command> [options]',
  summary: "test the config's own detectors",
  options: {},
  subcommands: [testSpec],
} satisfies CommandSpec;

/** Runs `ficta detect …` and returns the exit code. */
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
  findSubcommand(spec, sub);
  return runTest(rest, io);
}

interface Outcome {
  index: number;
  match: boolean;
  start?: number;
  end?: number;
  why?: string;
}

async function runTest(argv: string[], io: CliIo): Promise<number> {
  const { help, values, positionals } = parseCommandLine(testSpec, argv);
  if (help) {
    io.stdout.write(formatHelp(testSpec));
    return EXIT_OK;
  }
  const [name, ...strings] = positionals as [string, ...string[]];
  const loaded = loadConfig({ env: io.env, ...(values.config === undefined ? {} : { configFile: values.config }) });
  if (!loaded.ok) throw loaded.error;
  const config = loaded.value;
  // The config's kinds as if detection were on: a rule can be tried before it is switched on.
  const extra = configKinds({ ...config, detect: { ...config.detect, mode: 'redact' } });
  const kind = extra.find((k) => k.name === name) ?? KINDS.find((k) => k.name === name);
  if (kind === undefined) {
    const known = [...config.detect.custom.map((r) => r.name), ...config.detect.pii, ...(config.secrets.terms.length > 0 ? ['term'] : [])];
    throw usageError(testSpec, `no detector is called ${name}${known.length > 0 ? ` (the config has: ${known.join(', ')})` : ' (the config defines no custom detector, PII kind or term)'}`);
  }
  const finder = createCredentialFinder(createDetector({ builtins: false, extra: [kind] }));
  const rule = config.detect.custom.find((r) => r.name === name);
  const compiled = rule === undefined ? undefined : compileRule(rule as CustomRule);
  const outcomes: Outcome[] = strings.map((s, i) => {
    const buf = Buffer.from(s, 'utf8');
    const hit = finder.find(buf)[0];
    if (hit !== undefined) return { index: i + 1, match: true, start: hit.start, end: hit.end };
    return { index: i + 1, match: false, why: compiled === undefined ? `no ${name} found` : whyNot(buf, compiled) };
  });
  if (values.json === true) io.stdout.write(`${JSON.stringify({ detector: name, results: outcomes })}\n`);
  else {
    for (const o of outcomes) {
      io.stdout.write(o.match ? `${o.index}: match (${name}, bytes ${o.start}-${o.end} of ${Buffer.byteLength(strings[o.index - 1]!, 'utf8')})\n` : `${o.index}: no match: ${o.why}\n`);
    }
  }
  return outcomes.every((o) => o.match) ? EXIT_OK : EXIT_ERROR;
}

/** The first reason a custom rule does not match anywhere in `buf`. */
function whyNot(buf: Buffer, c: CompiledRule): string {
  const text = buf.toString('latin1');
  if (c.prefixes.length > 0) {
    const shown = c.prefixes.map((p) => Buffer.from(p).toString('utf8')).join(' or ');
    let first: { at: number; len: number } | undefined;
    for (const p of c.prefixes) {
      const at = text.indexOf(Buffer.from(p).toString('latin1'));
      if (at !== -1 && (first === undefined || at < first.at)) first = { at, len: p.length };
    }
    if (first === undefined) return `it does not hold the prefix ${shown}`;
    let why = 'the token is cut short right after its prefix';
    matchAt(buf, first.at, first.at + first.len, c, true, (r) => (why = r));
    return why;
  }
  const lower = text.toLowerCase();
  const kw = c.keywords.map((k) => ({ k, at: lower.indexOf(Buffer.from(k).toString('latin1')) })).filter((x) => x.at !== -1)[0];
  if (kw === undefined) return `none of its keywords (${c.keywords.map((k) => Buffer.from(k).toString('utf8')).join(', ')}) is in it`;
  const from = kw.at + kw.k.length;
  for (let p = from; p < Math.min(buf.length, from + c.distance + 1); p++) {
    if (c.set[buf[p]!] === 1 && boundaryBefore(buf, p, c.set)) {
      let why = 'the token is not where the proxy looks for it';
      matchAt(buf, p, p, c, false, (r) => (why = r));
      return why;
    }
  }
  return `no token of its charset starts within ${c.distance} bytes after the keyword`;
}
