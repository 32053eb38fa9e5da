// The one argument parser of the CLI. Each command declares its options and arguments once (a
// CommandSpec); parsing, --help, "did you mean" and shell completion all come from that declaration.
// Usage errors name options and arguments, never repeat a value given on the command line.

import { FictaError } from '../errors.ts';
import { isShowableWord, suggest } from './did-you-mean.ts';

/** What a shell should offer for a value: files, directories, commands, or a fixed list. */
export type Completion = 'file' | 'dir' | 'command' | readonly string[];

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** May be given more than once; the values are collected in order. */
  multiple?: boolean;
  /** One-letter alias (`-o`). */
  short?: string;
  /** The value's name in help (`PATH`, `N`, `URL`). */
  value?: string;
  help: string;
  /** The only accepted values (checked, completed, suggested). */
  choices?: readonly string[];
  complete?: Completion;
}

export type OptionsSpec = Readonly<Record<string, OptionSpec>>;

export interface PositionalSpec {
  /** How the arguments are named in messages and help: `NAME`, `FILE…`. */
  name: string;
  min?: number;
  /** Default: `min`. `Infinity` for any number. */
  max?: number;
  complete?: Completion;
  /** Added to the "unexpected argument" error (`values are never taken from the command line`). */
  extraHint?: string;
}

export interface CommandSpec {
  /** As typed after `ficta`: `serve`, `vault add`. */
  name: string;
  /** Usage lines after `ficta `, e.g. `serve [options]`. */
  usage: string;
  summary: string;
  /** Paragraphs printed under the usage line. */
  description?: string;
  options: OptionsSpec;
  positionals?: PositionalSpec;
  subcommands?: readonly CommandSpec[];
  /** Printed after the options (examples, environment). */
  footer?: string;
}

type OptionValue<O extends OptionSpec> = O['type'] extends 'boolean' ? boolean : O['multiple'] extends true ? string[] : string;

/** Parsed option values, typed from the spec. */
export type OptionValues<S extends OptionsSpec> = { -readonly [K in keyof S]?: OptionValue<S[K]> };

export interface ParsedArgs<S extends OptionsSpec> {
  /** `--help` or `-h` was given. */
  help: boolean;
  values: OptionValues<S>;
  positionals: string[];
  /** With `stopAtPositional`: the first positional and everything after it (a command line to run). */
  rest: string[];
}

export interface ParseOptions {
  /** Stop at the first positional argument (or `--`) and return the remainder untouched in `rest`. */
  stopAtPositional?: boolean;
}

const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', help: 'show this help' };

/** Parses `argv` against `spec`; throws a usage FictaError (exit 2) on anything it does not accept. */
export function parseCommandLine<S extends OptionsSpec>(spec: CommandSpec & { options: S }, argv: readonly string[], options: ParseOptions = {}): ParsedArgs<S> {
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  let help = false;
  let rest: string[] = [];
  const shorts = new Map<string, string>();
  for (const [name, o] of Object.entries(spec.options)) if (o.short !== undefined) shorts.set(o.short, name);

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      if (options.stopAtPositional === true) rest = argv.slice(i + 1);
      else positionals.push(...argv.slice(i + 1));
      break;
    }
    const isLong = arg.startsWith('--');
    const isShort = !isLong && arg.length > 1 && arg.startsWith('-');
    if (!isLong && !isShort) {
      if (options.stopAtPositional === true) {
        rest = argv.slice(i);
        break;
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const typed = eq === -1 ? arg : arg.slice(0, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const name = isLong ? typed.slice(2) : shorts.get(typed.slice(1));
    if (typed === '--help' || typed === '-h') {
      if (inline !== undefined) throw usageError(spec, '--help takes no value');
      help = true;
      continue;
    }
    const o = name === undefined ? undefined : spec.options[name];
    if (name === undefined || o === undefined) throw unknownOption(spec, typed);
    if (o.type === 'boolean') {
      if (inline !== undefined) throw usageError(spec, `--${name} takes no value`);
      values[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      // `--env-file --port 0`: the value is missing, not "--port".
      if (next === undefined || (next.startsWith('--') && next.length > 2 && isKnownOption(spec, next))) throw usageError(spec, `--${name} needs a value${o.value === undefined ? '' : ` (${o.value})`}`);
      value = next;
      i++;
    }
    if (o.choices !== undefined && !o.choices.includes(value)) {
      const close = suggest(value, o.choices);
      throw usageError(spec, `--${name} must be one of ${o.choices.join(', ')}${close === undefined ? '' : ` (did you mean ${close}?)`}`);
    }
    if (o.multiple === true) {
      const list = (values[name] as string[] | undefined) ?? [];
      list.push(value);
      values[name] = list;
    } else values[name] = value;
  }

  if (!help) checkPositionals(spec, positionals);
  return { help, values: values as OptionValues<S>, positionals, rest };
}

/** The `usage:` error for a command: `usage: ficta <name>: <what>; see ficta <name> --help`. */
export function usageError(spec: Pick<CommandSpec, 'name'>, what: string): FictaError {
  return new FictaError('FICTA_USAGE', `usage: ${spec.name}: ${what}; see ficta ${spec.name} --help`);
}

/** The subcommand of `spec` named `word`, or a usage error with a suggestion. */
export function findSubcommand(spec: CommandSpec, word: string): CommandSpec {
  const subs = spec.subcommands ?? [];
  const prefix = `${spec.name} `;
  const found = subs.find((s) => s.name === prefix + word);
  if (found !== undefined) return found;
  const names = subs.map((s) => s.name.slice(prefix.length));
  const close = suggest(word, names);
  const shown = isShowableWord(word) ? ` "${word}"` : '';
  throw usageError(spec, `unknown command${shown}${close === undefined ? '' : ` (did you mean "${close}"?)`}`);
}

/** The full help text of a command: usage, description, subcommands, options, footer. */
export function formatHelp(spec: CommandSpec): string {
  const lines: string[] = [];
  const usage = spec.usage.split('\n');
  lines.push(`usage: ficta ${usage[0] ?? ''}`, ...usage.slice(1).map((u) => `       ficta ${u}`), '');
  lines.push(spec.description ?? spec.summary, '');
  if (spec.subcommands !== undefined && spec.subcommands.length > 0) {
    lines.push('commands:');
    const prefix = `${spec.name} `;
    lines.push(...columns(spec.subcommands.map((s) => [s.name.slice(prefix.length), s.summary])));
    lines.push('', `Run "ficta ${spec.name} <command> --help" for the options of each.`, '');
  }
  const opts = Object.entries(spec.options).map(([name, o]): [string, string] => [optionLabel(name, o), optionHelp(o)]);
  opts.push([optionLabel('help', HELP_OPTION), HELP_OPTION.help]);
  lines.push('options:', ...columns(opts), '');
  if (spec.footer !== undefined) lines.push(spec.footer.trimEnd(), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** `-o, --output PATH` */
export function optionLabel(name: string, o: OptionSpec): string {
  const long = `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
  return o.short === undefined ? `    ${long}` : `-${o.short}, ${long}`;
}

function optionHelp(o: OptionSpec): string {
  const extra = o.multiple === true ? ' (repeatable)' : '';
  return o.help + extra;
}

/** Two aligned columns; a left cell too wide puts its text on the next line. */
function columns(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const WIDTH = 28;
  const out: string[] = [];
  for (const [left, right] of rows) {
    const helpLines = right.split('\n');
    if (left.length + 2 > WIDTH) out.push(`  ${left}`, ...helpLines.map((h) => `  ${' '.repeat(WIDTH)}${h}`));
    else out.push(`  ${left.padEnd(WIDTH)}${helpLines[0] ?? ''}`, ...helpLines.slice(1).map((h) => `  ${' '.repeat(WIDTH)}${h}`));
  }
  return out;
}

function isKnownOption(spec: CommandSpec, arg: string): boolean {
  const name = arg.slice(2).split('=', 1)[0] as string;
  return name === 'help' || spec.options[name] !== undefined;
}

function unknownOption(spec: CommandSpec, typed: string): FictaError {
  const names = Object.keys(spec.options).map((n) => `--${n}`);
  const close = typed.startsWith('--') ? suggest(typed, [...names, '--help']) : undefined;
  // The option's name is shown only when it looks like one (a pasted value is not repeated).
  const word = typed.replace(/^--?/, '');
  const shown = isShowableWord(word) ? ` ${typed}` : '';
  return usageError(spec, `unknown option${shown}${close === undefined ? '' : ` (did you mean ${close}?)`}`);
}

function checkPositionals(spec: CommandSpec, positionals: readonly string[]): void {
  const p = spec.positionals;
  const min = p?.min ?? 0;
  const max = p?.max ?? min;
  if (positionals.length < min) throw usageError(spec, `expected ${p?.name ?? 'an argument'}`);
  if (positionals.length > max) {
    const what = max === 0 ? 'takes no arguments' : `unexpected extra argument after ${p?.name ?? 'the arguments'}`;
    // Never the argument itself: it could be a value typed where it does not belong.
    throw usageError(spec, `${what}${p?.extraHint === undefined ? '' : ` (${p.extraHint})`}`);
  }
}
