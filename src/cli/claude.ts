// `ficta claude …`: Claude Code behind a private proxy.

import { agentCommand } from './agent-command.ts';

export const { spec, run } = agentCommand('claude');
