// The restore policy each request uses, compiled once per secret set (a set changes when the vault does,
// its hosts with it), and the view of the set redaction and the gate use on a route to an MCP server.

import type { McpDirectory } from '../mcp/servers.ts';
import { scopeSecretSet, type SecretSet } from '../redact/secret-set.ts';
import type { RestoreConfig } from '../sinks/config.ts';
import type { RestorePolicy } from '../sinks/policy.ts';
import { policyFor } from '../sinks/tool-call-gate.ts';

/**
 * The compiled policy per secret set, keyed by its hosts array (all a policy reads of a set), which a
 * gateway tenant's per-request view shares with the set it views.
 */
const policies = new WeakMap<SecretSet['hosts'], { config: RestoreConfig; mcp: McpDirectory | undefined; policy: RestorePolicy }>();

/**
 * Scoped views per set object and MCP host. Keyed by the set itself, never by its hosts: a tenant view holds
 * that tenant's placeholders, so a view scoped from it must never serve another request's set.
 */
const scopedViews = new WeakMap<SecretSet, { policy: RestorePolicy; byHost: Map<string, SecretSet> }>();

export function policyOf(set: SecretSet, config: RestoreConfig, mcp: McpDirectory | undefined): RestorePolicy {
  const hit = policies.get(set.hosts);
  if (hit !== undefined && hit.config === config && hit.mcp === mcp) return hit.policy;
  const policy = policyFor(set, config, mcp);
  policies.set(set.hosts, { config, mcp, policy });
  return policy;
}

/**
 * The set as redaction and the gate see it on a route to an MCP server at `host`: values allowed to
 * reach that host (`--allow-host`, per-secret hosts) go through; every other registered or detected value
 * is redacted, or blocks.
 */
export function scopedFor(set: SecretSet, config: RestoreConfig, mcp: McpDirectory | undefined, host: string): SecretSet {
  const policy = policyOf(set, config, mcp);
  let views = scopedViews.get(set);
  if (views === undefined || views.policy !== policy) {
    views = { policy, byHost: new Map() };
    scopedViews.set(set, views);
  }
  let scoped = views.byHost.get(host);
  if (scoped === undefined) {
    scoped = scopeSecretSet(set, (secret) => policy.allows(secret, host));
    views.byHost.set(host, scoped);
  }
  return scoped;
}
