// Types for the one undici module that upstream.ts loads by its path: the Agent class, as undici's index
// exports it.

declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
