// `ficta opencode …`: opencode behind a private proxy.

import { agentCommand } from './agent-command.ts';

export const { spec, run } = agentCommand('opencode');
