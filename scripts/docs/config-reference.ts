// Generates docs/configuration.md from the zod schema (src/config/schema.ts and its sub-schemas: their
// `.describe()` texts and defaults), the FICTA_* table of src/config/load.ts, and the flags found by
// asking proxyFlags which config key each option sets. Nothing here restates a default or a key by hand.

import { z } from '../../src/config/zod.ts';
import { ConfigSchema } from '../../src/config/schema.ts';
import { ENV_KEYS, NAMED_UPSTREAM_ENV } from '../../src/config/load.ts';
import type { OptionSpec } from '../../src/cli/args.ts';
import { proxyFlags, SERVE_OPTIONS, WRAP_OPTIONS } from '../../src/cli/proxy-options.ts';

type Json = { type?: string; description?: string; default?: unknown; properties?: Record<string, Json>; additionalProperties?: Json | boolean; enum?: unknown[]; const?: unknown; anyOf?: Json[]; items?: Json };

/** Options serve.ts hands to the session itself rather than through proxyFlags (`--ready-file`). */
const SESSION_OPTIONS: Readonly<Record<string, string>> = { readyFile: 'ready-file' };

/** A value each option accepts, to see which config key it sets. */
function sample(name: string, o: OptionSpec): string | boolean | string[] {
  if (o.type === 'boolean') return true;
  const one = o.choices?.[0] ?? ({ port: '1', 'max-body-bytes': '1', token: 'aaaaaaaaaaaaaaaa', 'allow-host': 'example.com', upstream: 'name=http://x' } as Record<string, string>)[name] ?? 'x';
  return o.multiple === true ? [one] : one;
}

function leafPaths(tree: unknown, prefix = ''): string[] {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) return [prefix];
  return Object.entries(tree).flatMap(([k, v]) => leafPaths(v, prefix === '' ? k : `${prefix}.${k}`));
}

/** Config key → the flags that set it. */
function flagsByKey(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (key: string, flag: string): void => void out.set(key, [...(out.get(key) ?? []), flag]);
  const options: Record<string, OptionSpec> = { ...SERVE_OPTIONS, ...WRAP_OPTIONS };
  for (const [name, o] of Object.entries(options)) {
    const { flags } = proxyFlags({ [name]: sample(name, o) } as never);
    const label = name === 'upstream' ? '--upstream NAME=URL' : o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? 'VALUE'}`;
    for (const path of leafPaths(flags)) if (path !== '') add(path === 'upstreams.name.url' ? 'upstreams.<name>.url' : path, label);
  }
  for (const [key, name] of Object.entries(SESSION_OPTIONS)) add(key, `--${name} ${(options[name] as OptionSpec).value ?? 'VALUE'}`);
  return out;
}

/** Options that set no config key (they act on the command itself). */
function optionsWithoutKey(byKey: Map<string, string[]>): Array<[string, OptionSpec]> {
  const used = new Set([...byKey.values()].flat().map((l) => l.split(' ')[0]));
  const options: Record<string, OptionSpec> = { ...SERVE_OPTIONS, ...WRAP_OPTIONS };
  return Object.entries(options).filter(([name]) => !used.has(`--${name}`));
}

function envByKey(): Map<string, string> {
  return new Map(ENV_KEYS.map(([name, path]) => [path.join('.'), name]));
}

function fmtDefault(key: string, v: unknown): string {
  if (v === undefined) return 'none';
  if (Array.isArray(v)) return v.length === 0 ? 'none' : `\`${JSON.stringify(v)}\``;
  if (typeof v === 'number' && /Bytes$/.test(key) && v % (1024 * 1024) === 0) return `${v / (1024 * 1024)} MiB`;
  if (typeof v === 'number' && /Ms$/.test(key) && v % 1000 === 0) return `${v / 1000} s`;
  if (typeof v === 'number') return String(v);
  return `\`${JSON.stringify(v)}\``;
}

function fmtType(s: Json): string {
  if (s.enum !== undefined) return s.enum.map((e) => `\`${JSON.stringify(e)}\``).join(' / ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.anyOf !== undefined) return s.anyOf.map(fmtType).join(' / ');
  if (s.type === 'array') return `list of ${fmtType(s.items ?? {})}`;
  if (s.type === 'object' && typeof s.additionalProperties === 'object') return `table of ${fmtType(s.additionalProperties)}`;
  return s.type ?? 'any';
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function rows(props: Record<string, Json>, prefix: string, flags: Map<string, string[]>, env: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, s] of Object.entries(props)) {
    const key = `${prefix}${k}`;
    if (s.type === 'object' && s.properties !== undefined) continue;
    const f = (flags.get(key) ?? []).map((l) => `\`${l}\``).join(', ');
    const e = env.has(key) ? `\`${env.get(key)}\`` : '';
    out.push(`| \`${key}\` | ${cell(fmtType(s))} | ${cell(fmtDefault(k, s.default))} | ${cell(f)} | ${e} | ${cell(s.description ?? '')} |`);
  }
  return out;
}

const INTRO = `Flags beat \`FICTA_*\` environment variables, which beat the config file (\`FICTA_HOME/config.toml\`, or
\`--config FILE\`, TOML or \`.json\`; every key is annotated in \`config/ficta.example.toml\`). Secret lists from
all three are merged. An invalid or unknown key is an error that names it (\`config: upstreams.anthropc:
unknown key\`); exit 2 when the bad value came from a flag, 1 from the file or the environment. Keys are
camelCase; a table below is a \`[table]\` in TOML (\`[limits]\` \`maxBodyBytes = 1048576\`).

\`--env-file\` reads dotenv syntax: \`KEY=value\`, \`export KEY=value\`, \`#\` comments, single quotes (literal),
double quotes (with \`\\n \\r \\t \\" \\\\ \\$\` escapes), backticks, multi-line quoted values, CRLF files. There
is no \`\${VAR}\` expansion: \`$\` is literal. A name set more than once (in one file or across files) has every
one of its values protected, not just the last.
`;

/** The whole page. */
export function configurationPage(): string {
  const schema = z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as Json;
  const flags = flagsByKey();
  const env = envByKey();
  const props = schema.properties ?? {};
  const head = '| key | type | default | flag | environment | what it does |\n|---|---|---|---|---|---|';
  const parts = [
    '# Configuration reference',
    '<!-- Generated by `pnpm run docs` (scripts/docs.ts) from src/config/schema.ts and the CLI option tables. Do not edit: change the schema\'s .describe() texts and run `pnpm run docs`. -->',
    INTRO.trimEnd(),
    '## Top level',
    `${head}\n${rows(Object.fromEntries(Object.entries(props).filter(([k]) => k !== 'home')), '', flags, env).join('\n')}`,
  ];
  const sections = Object.entries(props).filter(([, s]) => s.type === 'object' && s.properties !== undefined);
  for (const [name, s] of sections) {
    const lines = [`## \`${name}\``, s.description ?? ''];
    const nested: string[] = [];
    let table = rows(s.properties ?? {}, `${name}.`, flags, env);
    for (const [k, sub] of Object.entries(s.properties ?? {})) {
      if (sub.type === 'object' && sub.properties !== undefined) {
        nested.push(`### \`${name}.${k}\``, sub.description ?? '', `${head}\n${rows(sub.properties, `${name}.${k}.`, flags, env).join('\n')}`);
      }
    }
    if (name === 'upstreams' && typeof s.additionalProperties === 'object') {
      const f = (flags.get('upstreams.<name>.url') ?? []).map((l) => `\`${l}\``).join(', ');
      table = [...table, `| \`upstreams.<name>.url\` | string | none | ${f} | \`${NAMED_UPSTREAM_ENV}<NAME>\` | A named upstream, routed at \`/<name>/…\` ([providers.md](providers.md#named-upstreams)). |`];
    }
    lines.push(`${head}\n${table.join('\n')}`, ...nested);
    parts.push(...lines.filter((l) => l !== ''));
  }
  const other = optionsWithoutKey(flags).map(([name, o]) => `| \`--${name}${o.type === 'boolean' ? '' : ` ${o.value ?? 'VALUE'}`}\` | ${cell(o.help)} |`);
  parts.push(
    '## Options that set no config key',
    'They act on the command itself (`serve`, `run`, the agent commands, `doctor`).',
    `| option | what it does |\n|---|---|\n${other.join('\n')}`,
    '## Environment that is not a config key',
    [
      '| variable | what it does |',
      '|---|---|',
      `| \`FICTA_HOME\` | ${cell(props.home?.description ?? '')} Default \`~/.ficta\` (keys, vault, registry, config; mode 0700). |`,
      '| `FICTA_VAULT_KEY_FILE` / `FICTA_VAULT_PASSPHRASE` | Unlock the vault without a prompt (`--key-file PATH` is the flag for the first). |',
    ].join('\n'),
  );
  return `${parts.join('\n\n')}\n`;
}
