// The restore policy for tool calls: the mode (`restore.toolCalls`), the hosts every secret may reach
// (`restore.allowHosts`, `--allow-host`) and the hosts of each secret (a vault record's `--host`,
// `[secrets.hosts]`), compiled once per secret set, and the MCP servers whose tools reach a host.

import { EMPTY_MCP_DIRECTORY, type McpDirectory } from '../mcp/servers.ts';
import { createHostMatcher, type HostMatcher } from './hosts.ts';

/** `guarded`: withhold restores that would cross the network; `all`: restore every one; `never`: none in tool calls. */
export type ToolCallMode = 'guarded' | 'all' | 'never';

/** Every value `restore.toolCalls` takes. */
export const TOOL_CALL_MODES: readonly ToolCallMode[] = ['guarded', 'all', 'never'];

/** What the classifier asks of the configuration. */
export interface RestorePolicy {
  readonly mode: ToolCallMode;
  /** True when secret `secret` (an index of the secret set) may be restored into a call that reaches `host`. */
  allows(secret: number, host: string): boolean;
  /** True when the secret has hosts of its own (else `allows` is the same for it as for any other). */
  hasOwnHosts(secret: number): boolean;
  /** The MCP servers known: a tool of a remote one is a call to its host. */
  readonly mcp: McpDirectory;
}

/** What a policy is compiled from. */
export interface RestorePolicyOptions {
  mode: ToolCallMode;
  /** Normalised patterns (parseHostPattern) allowed for every secret. */
  allowHosts: readonly string[];
  /** Normalised patterns allowed for one secret, by index (a SecretSet's `hosts`). */
  secretHosts: readonly (readonly string[])[];
  /** Known MCP servers (none by default: then only names shaped like MCP tools are recognised, as unknown). */
  mcp?: McpDirectory;
}

/** Compiles the policy; per-secret matchers are built on first use. */
export function createRestorePolicy(options: RestorePolicyOptions): RestorePolicy {
  const global = createHostMatcher(options.allowHosts);
  const perSecret = new Map<number, HostMatcher>();
  return {
    mode: options.mode,
    mcp: options.mcp ?? EMPTY_MCP_DIRECTORY,
    hasOwnHosts: (secret) => (options.secretHosts[secret]?.length ?? 0) > 0,
    allows(secret, host) {
      if (global.allows(host)) return true;
      const own = options.secretHosts[secret];
      if (own === undefined || own.length === 0) return false;
      let m = perSecret.get(secret);
      if (m === undefined) {
        m = createHostMatcher(own);
        perSecret.set(secret, m);
      }
      return m.allows(host);
    },
  };
}
