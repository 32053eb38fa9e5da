// The table of ficta commands: one entry and one file per command. The top-level help, "did you mean",
// `ficta help CMD` and shell completion are all derived from this table and each command's own spec,
// so a new command gets them by adding its line here.

import type { Command } from './io.ts';

export interface CommandEntry {
  /** One line for `ficta --help`. */
  summary: string;
  load: () => Promise<Command>;
}

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  serve: { summary: 'run the redacting proxy', load: () => import('./serve.ts') },
  gateway: { summary: "run ficta as an organisation's gateway: tenants, shared sources, admin listener", load: () => import('./gateway.ts') },
  run: { summary: 'run a command behind a private proxy: ficta run -- CMD ARGS…', load: () => import('./run.ts') },
  claude: { summary: 'run Claude Code behind a private proxy', load: () => import('./claude.ts') },
  codex: { summary: 'run Codex behind a private proxy', load: () => import('./codex.ts') },
  gemini: { summary: 'run Gemini CLI behind a private proxy', load: () => import('./gemini.ts') },
  opencode: { summary: 'run opencode behind a private proxy', load: () => import('./opencode.ts') },
  status: { summary: 'the ficta proxies running for this user', load: () => import('./status.ts') },
  scan: { summary: 'find credentials in files, the environment or git history', load: () => import('./scan.ts') },
  report: { summary: 'print a run report written with --report-file', load: () => import('./report.ts') },
  doctor: { summary: 'check config, secrets, vault, upstreams, port and agent routing', load: () => import('./doctor.ts') },
  vault: { summary: 'manage the sealed secret vault', load: () => import('./vault.ts') },
  watermark: { summary: 'mark a document shared by hand, or read its marks', load: () => import('./watermark.ts') },
  attribute: { summary: 'say which session and request sent a leaked text', load: () => import('./attribute.ts') },
  bench: { summary: 'measure what ficta adds on this machine', load: () => import('./bench.ts') },
};

/** Built into main.ts (they read this table themselves), listed for help and completion. */
export const BUILTINS: Readonly<Record<string, string>> = {
  help: 'show help for ficta or a command: ficta help [COMMAND]',
  completion: 'print a shell completion script: ficta completion bash|zsh|fish',
};
