// The command line's one parser and what is derived from the command table: every command's --help
// documents every option it accepts, mistyped commands/options/values get "did you mean", usage errors
// never repeat a value from argv, exit codes follow the table, and shell completion is generated.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatHelp, parseCommandLine, type CommandSpec } from '../../src/cli/args.ts';
import { loadSpecs } from '../../src/cli/completion.ts';
import { isShowableWord, suggest } from '../../src/cli/did-you-mean.ts';
import { runMain } from '../helpers/cli-io.ts';
import { testDir } from '../helpers/temp-dir.ts';

const PASTED = 'sk-live-4f9a8b7c6d5e4f3a2b1c';

describe('help', () => {
  it('documents every option of every command and subcommand in its --help, and each help exits 0', async () => {
    const specs = await loadSpecs();
    const all: CommandSpec[] = [];
    // `help` is main's own (ficta help --help is the top-level help).
    for (const s of specs) if (s.name !== 'help') all.push(s, ...(s.subcommands ?? []));
    expect(all.map((s) => s.name)).toEqual(expect.arrayContaining(['serve', 'run', 'claude', 'codex', 'status', 'report', 'doctor', 'vault add', 'vault backup', 'vault restore', 'completion']));
    for (const s of all) {
      const r = await runMain([...s.name.split(' '), '--help'], { FICTA_HOME: testDir('ficta-help-') });
      expect([s.name, r.code, r.stderr]).toEqual([s.name, 0, '']);
      expect(r.stdout).toBe(formatHelp(s));
      for (const name of Object.keys(s.options)) expect(r.stdout, `${s.name} --help lacks --${name}`).toContain(`--${name}`);
      expect(r.stdout).toContain('--help');
    }
  });

  it('report and doctor have real help, not one line', async () => {
    for (const cmd of ['report', 'doctor']) {
      const r = await runMain([cmd, '--help']);
      expect(r.stdout.split('\n').length).toBeGreaterThan(8);
    }
    const doctor = await runMain(['doctor', '--help']);
    for (const o of ['--env-file', '--secret-env', '--port', '--host', '--anthropic-upstream', '--openai-upstream', '--online', '--json']) expect(doctor.stdout).toContain(o);
  });

  it('ficta claude --help is ficta’s help, says how to reach the agent’s own, and works when the agent is not installed', async () => {
    for (const agent of ['claude', 'codex']) {
      const r = await runMain([agent, '--help'], { PATH: '/nonexistent' });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`usage: ficta ${agent} [ficta options --]`);
      expect(r.stdout).toContain('--env-file');
      expect(r.stdout).toContain(`ficta ${agent} -- --help`);
    }
  });

  it('ficta help COMMAND and ficta --help', async () => {
    const top = await runMain(['--help']);
    expect(top.code).toBe(0);
    for (const c of ['serve', 'run', 'status', 'vault', 'completion']) expect(top.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect((await runMain(['help', 'status'])).stdout).toMatch(/^usage: ficta status/);
    expect((await runMain([])).code).toBe(2);
  });
});

describe('usage errors', () => {
  it('suggests the closest command, subcommand, option and choice, with exit 2 and no raw parser text', async () => {
    const cases: Array<[string[], string]> = [
      [['serv'], 'ficta: usage: unknown command "serv" (did you mean "serve"?); see ficta --help\n'],
      [['stauts'], 'ficta: usage: unknown command "stauts" (did you mean "status"?); see ficta --help\n'],
      [['serve', '--prot', '1'], 'ficta: usage: serve: unknown option --prot (did you mean --port?); see ficta serve --help\n'],
      [['serve', '--log-format', 'jsn'], 'ficta: usage: serve: --log-format must be one of auto, json, text (did you mean json?); see ficta serve --help\n'],
      [['vault', 'lst'], 'ficta: usage: vault: unknown command "lst" (did you mean "list"?); see ficta vault --help\n'],
      [['vault', 'list', '--jsn'], 'ficta: usage: vault list: unknown option --jsn (did you mean --json?); see ficta vault list --help\n'],
      [['serve', '--port'], 'ficta: usage: serve: --port needs a value (PORT); see ficta serve --help\n'],
      [['serve', '--env-file', '--port', '0'], 'ficta: usage: serve: --env-file needs a value (PATH); see ficta serve --help\n'],
      [['serve', '--port', 'x'], 'ficta: usage: serve: --port must be a whole number; see ficta serve --help\n'],
      [['report'], 'ficta: usage: report: expected FILE; see ficta report --help\n'],
      [['serve', '--no-vault=1'], 'ficta: usage: serve: --no-vault takes no value; see ficta serve --help\n'],
    ];
    for (const [argv, stderr] of cases) {
      const r = await runMain(argv, { FICTA_HOME: testDir('ficta-usage-') });
      expect([argv, r.code, r.stderr]).toEqual([argv, 2, stderr]);
    }
  });

  it('never repeats a value from argv: a pasted secret as a command, an option, an option value or an extra argument', async () => {
    const home = testDir('ficta-echo-');
    for (const argv of [[PASTED], ['serve', `--${PASTED}`], ['serve', `--token=${PASTED}x`, '--bogus'], ['vault', 'add', 'NAME', PASTED], ['vault', 'rm', 'NAME', PASTED], ['report', 'a', PASTED], ['vault', PASTED], ['serve', '--log-format', PASTED], ['doctor', PASTED]]) {
      const r = await runMain(argv, { FICTA_HOME: home });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).not.toContain(PASTED);
      expect(r.stderr).not.toContain(PASTED.slice(0, 12));
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
    // A name that is not a name is not repeated either (a value pasted where the name belongs).
    const bad = await runMain(['vault', 'add', PASTED.replace(/-/g, '/')], { FICTA_HOME: home });
    expect(bad.stderr).not.toContain(PASTED.slice(3, 12));
  });

  it('a config value given as a flag is a usage error (2); one from the environment is an operational error (1)', async () => {
    const home = testDir('ficta-cfg-');
    const flag = await runMain(['serve', '--anthropic-upstream', 'ftp://x', '--port', '0'], { FICTA_HOME: home });
    expect([flag.code, flag.stderr]).toEqual([2, 'ficta: config: upstreams.anthropic: must be an http(s) URL without query or fragment\n']);
    const env = await runMain(['serve', '--port', '0'], { FICTA_HOME: home, FICTA_ANTHROPIC_UPSTREAM: 'ftp://x' });
    expect(env.code).toBe(1);
  });

  it('with --log-format json even a usage error is one JSON line', async () => {
    const r = await runMain(['serve', '--log-format', 'json', '--prot', '1']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ level: 'error', name: 'ficta', event: 'error', code: 'FICTA_USAGE', msg: expect.stringContaining('did you mean --port?') });
  });
});

describe('the parser', () => {
  const spec = {
    name: 't',
    usage: 't',
    summary: 't',
    options: { a: { type: 'string', multiple: true, help: 'a' }, b: { type: 'boolean', short: 'b', help: 'b' } },
    positionals: { name: 'X', max: Infinity },
  } satisfies CommandSpec;

  it('reads --name value, --name=value, repeats, shorts, -- and stops at the first positional when asked', () => {
    expect(parseCommandLine(spec, ['--a', '1', '--a=2', '-b', 'x', '--', '--a'])).toEqual({ help: false, values: { a: ['1', '2'], b: true }, positionals: ['x', '--a'], rest: [] });
    expect(parseCommandLine(spec, ['-b', 'cmd', '--a', '1'], { stopAtPositional: true })).toEqual({ help: false, values: { b: true }, positionals: [], rest: ['cmd', '--a', '1'] });
    expect(parseCommandLine(spec, ['--a', '1', '--', 'cmd', '-b'], { stopAtPositional: true }).rest).toEqual(['cmd', '-b']);
    expect(parseCommandLine(spec, ['-h']).help).toBe(true);
  });

  it('suggests only close words and shows only word-like input', () => {
    expect(suggest('serv', ['serve', 'status'])).toBe('serve');
    expect(suggest('vau', ['vault', 'serve'])).toBe('vault');
    expect(suggest('xyzzy', ['serve', 'status'])).toBeUndefined();
    expect(suggest('x'.repeat(500), ['serve'])).toBeUndefined();
    expect(isShowableWord('serv')).toBe(true);
    expect(isShowableWord('ghp_abc123')).toBe(false);
    expect(isShowableWord('hunter2hunter2')).toBe(false);
  });
});

describe('ficta completion', () => {
  it('bash: completes commands, subcommands, options and fixed values from the specs', async () => {
    const r = await runMain(['completion', 'bash']);
    expect(r.code).toBe(0);
    const script = join(testDir('ficta-compl-'), 'ficta.bash');
    writeFileSync(script, r.stdout);
    const complete = (line: string): string[] => {
      const words = line.split(' ');
      const out = execFileSync('bash', ['-c', `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ficta; printf '%s\\n' "\${COMPREPLY[@]}"`, 'x', script], { encoding: 'utf8' });
      return out.split('\n').filter((w) => w !== '');
    };
    expect(complete('ficta se')).toEqual(['serve']);
    expect(complete('ficta st')).toEqual(['status']);
    expect(complete('ficta serve --env')).toEqual(['--env-file']);
    expect(complete('ficta serve --log-format ')).toEqual(['auto', 'json', 'text']);
    expect(complete('ficta vault b')).toEqual(['backup']);
    expect(complete('ficta vault rm --y')).toEqual(['--yes']);
    expect(complete('ficta vault init --kdf ')).toEqual(['interactive', 'moderate', 'sensitive']);
    expect(complete('ficta completion ')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('zsh loads the bash script through bashcompinit; fish gets complete lines; other shells are a usage error', async () => {
    const zsh = await runMain(['completion', 'zsh']);
    expect(zsh.stdout.startsWith('autoload -U +X bashcompinit && bashcompinit\n')).toBe(true);
    const fish = await runMain(['completion', 'fish']);
    expect(fish.stdout).toContain("complete -c ficta -n '__fish_use_subcommand' -a 'serve' -d 'run the redacting proxy'");
    expect(fish.stdout).toContain("complete -c ficta -n '__fish_seen_subcommand_from vault; and __fish_seen_subcommand_from add' -l from-env -x -d 'take the value from environment variable VAR'");
    expect(fish.stdout).toContain("-l log-format -xa 'auto json text'");
    expect((await runMain(['completion', 'tcsh'])).code).toBe(2);
  });
});
