// `ficta claude|codex|gemini|opencode …`: the agent behind a private proxy, with what it needs to route
// all model traffic through it. Arguments go to the agent; ficta's own options, if any, come before `--`.

import { parseArgs } from 'node:util';
import { FictaError } from '../errors.ts';
import { agentPlan, findAgent, type AgentName } from './agents.ts';
import type { CliIo, Command } from './io.ts';
import { PROXY_OPTIONS, PROXY_OPTIONS_HELP, proxyFlags } from './proxy-options.ts';
import { runOrExitCode } from './run.ts';
import { runWrapped } from './wrap.ts';

/** The command module for one agent. */
export function agentCommand(agent: AgentName): Command {
  return {
    async run(argv: string[], io: CliIo): Promise<number> {
      const dash = argv.indexOf('--');
      const own = dash === -1 ? [] : argv.slice(0, dash);
      const userArgs = dash === -1 ? argv : argv.slice(dash + 1);
      if (own.includes('--help') || own.includes('-h')) {
        io.stdout.write(`usage: ficta ${agent} [ficta options --] [${agent} arguments…]\n\n${PROXY_OPTIONS_HELP}`);
        return 0;
      }
      const { values } = parseArgs({ args: own, options: PROXY_OPTIONS, strict: true, allowPositionals: false });
      const { flags, configFile, keyFile } = proxyFlags(values);
      return runOrExitCode(async () => {
        const bin = findAgent(agent, io.env);
        if (bin === undefined) {
          throw new FictaError('FICTA_RUN_NOT_FOUND', `${agent}: not found on PATH (install it, or set FICTA_${agent.toUpperCase()}_BIN)`, { status: 127 });
        }
        return runWrapped({ flags, configFile, keyFile, io, plan: (urls) => agentPlan(agent, bin, userArgs, urls, io.env) });
      }, io);
    },
  };
}
