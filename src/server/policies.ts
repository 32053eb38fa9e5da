// The restore policy each request uses, compiled once per secret set (a set changes when the vault does,
// its hosts with it), and the view of the set redaction and the gate use on a route to an MCP server.

import type { McpDirectory } from '../mcp/servers.ts';
import { scopeSecretSet, type SecretSet } from '../redact/secret-set.ts';
import type { RestoreConfig } from '../sinks/config.ts';
import type { RestorePolicy } from '../sinks/policy.ts';
import { policyFor } from '../sinks/tool-call-gate.ts';

/** The compiled policy per secret set (a set changes when the vault does; its hosts with it). */
const policies = new WeakMap<SecretSet, { config: RestoreConfig; mcp: McpDirectory | undefined; policy: RestorePolicy; scoped: Map<string, SecretSet> }>();

function policyEntry(set: SecretSet, config: RestoreConfig, mcp: McpDirectory | undefined): { policy: RestorePolicy; scoped: Map<string, SecretSet> } {
  const hit = policies.get(set);
  if (hit !== undefined && hit.config === config && hit.mcp === mcp) return hit;
  const entry = { config, mcp, policy: policyFor(set, config, mcp), scoped: new Map<string, SecretSet>() };
  policies.set(set, entry);
  return entry;
}

export function policyOf(set: SecretSet, config: RestoreConfig, mcp: McpDirectory | undefined): RestorePolicy {
  return policyEntry(set, config, mcp).policy;
}

/**
 * The set as redaction and the gate see it on a route to an MCP server at `host`: values allowed to
 * reach that host (`--allow-host`, per-secret hosts) go through; every other registered or detected value
 * is redacted, or blocks.
 */
export function scopedFor(set: SecretSet, config: RestoreConfig, mcp: McpDirectory | undefined, host: string): SecretSet {
  const entry = policyEntry(set, config, mcp);
  let scoped = entry.scoped.get(host);
  if (scoped === undefined) {
    const policy = entry.policy;
    scoped = scopeSecretSet(set, (secret) => policy.allows(secret, host));
    entry.scoped.set(host, scoped);
  }
  return scoped;
}

