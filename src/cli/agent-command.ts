// `ficta claude|codex|gemini|opencode …`: the agent behind a private proxy, with what it needs to route
// all model traffic through it. Arguments go to the agent; ficta's own options, if any, come before `--`.
// `ficta <agent> --help` is ficta's help (the agent's own: `ficta <agent> -- --help`).

import { formatHelp, parseCommandLine, type CommandSpec } from './args.ts';
import { geminiAuthHint } from './agent-gemini.ts';
import { agentPlan, findAgent, type AgentName } from './agents.ts';
import { EXIT_NOT_FOUND, EXIT_OK, EXIT_RUN_FAILED } from './exit-codes.ts';
import type { CliIo, Command } from './io.ts';
import { createNotices } from './notice.ts';
import { proxyFlags, wantsJson, WRAP_OPTIONS } from './proxy-options.ts';
import { reportError } from './report-error.ts';
import { runWrapped } from './wrap.ts';
import { FictaError } from '../errors.ts';
import { readAgentMcp } from '../mcp/agent-servers.ts';

/** Each agent's name as its vendor writes it. */
const NAMES: Record<AgentName, string> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'opencode' };

/** A one-shot, non-interactive run of each agent, for its help text. */
const EXAMPLE: Record<AgentName, string> = {
  claude: '-p "fix the failing test"',
  codex: 'exec "fix the failing test"',
  gemini: '-p "fix the failing test"',
  opencode: 'run "fix the failing test"',
};

/** The command module for one agent. */
export function agentCommand(agent: AgentName): Command {
  const spec = {
    name: agent,
    usage: `${agent} [ficta options --] [${agent} arguments…]`,
    summary: `run ${NAMES[agent]} behind a private proxy`,
    description: `Runs ${NAMES[agent]} (${agent} on PATH, or FICTA_${agent.toUpperCase()}_BIN) behind a private proxy with a random
per-run token, routed so that all its model traffic goes through ficta. Every argument goes to ${agent};
ficta's own options, if any, come first and end with --:

  ficta ${agent} --env-file .env -- ${EXAMPLE[agent]}

For ${agent}'s own help: ficta ${agent} -- --help`,
    options: WRAP_OPTIONS,
    footer: `Exit codes: ${agent}'s own; 125 when ficta fails before ${agent} starts; 127 when ${agent} is not installed.`,
  } satisfies CommandSpec;
  return {
    spec,
    async run(argv: string[], io: CliIo): Promise<number> {
      const dash = argv.indexOf('--');
      // Without `--`, everything is the agent's, except a lone --help/-h asking for ficta's help.
      const own = dash === -1 ? (argv[0] === '--help' || argv[0] === '-h' ? [argv[0]] : []) : argv.slice(0, dash);
      const userArgs = dash === -1 ? (own.length > 0 ? [] : argv) : argv.slice(dash + 1);
      const json = wantsJson(own, io.env, WRAP_OPTIONS);
      let values;
      let flags;
      try {
        const parsed = parseCommandLine(spec, own);
        if (parsed.help) {
          io.stdout.write(formatHelp(spec));
          return EXIT_OK;
        }
        values = parsed.values;
        flags = proxyFlags(values, agent);
      } catch (error) {
        reportError(error, io.stderr, json);
        return EXIT_RUN_FAILED;
      }
      const bin = findAgent(agent, io.env);
      if (bin === undefined) {
        reportError(new FictaError('FICTA_RUN_NOT_FOUND', `${agent}: not found on PATH (install ${NAMES[agent]}, or set FICTA_${agent.toUpperCase()}_BIN)`), io.stderr, json);
        return EXIT_NOT_FOUND;
      }
      if (agent === 'gemini') {
        const hint = geminiAuthHint(io.env, io.cwd ?? process.cwd(), userArgs, process.stdin.isTTY === true);
        if (hint !== undefined) createNotices(io.stderr, json).warn('gemini_auth', `gemini: ${hint}`);
      }
      // The agent's MCP servers: their tools are destinations, the remote ones are carried through /mcp/<name>.
      const mcp = readAgentMcp(agent, io.env, io.cwd ?? process.cwd(), userArgs);
      return runWrapped({
        mode: agent,
        ...flags,
        io,
        quiet: values.quiet === true,
        json,
        mcpServers: mcp.servers.map((f) => f.server),
        mcpProblems: mcp.problems,
        plan: (urls) => agentPlan(agent, bin, userArgs, urls, io.env, mcp.servers),
      });
    },
  };
}
