// Counting withheld restores (per secret and reason: `network:evil.example`) for the request log and the
// run report, and the one line `ficta run/claude/codex` prints after the agent exits. Names and hosts only.

import type { SecretSet } from '../redact/secret-set.ts';

/** Withheld restores of one request: secret index → reason → count. */
export type WithheldCounts = Map<number, Map<string, number>>;

/** Withheld restores by secret name: name → reason → count (JSON-friendly, as logged and reported). */
export type WithheldByName = Record<string, Record<string, number>>;

/** Why a gateway tenant's placeholder stays: its value belongs to a source none of the tenant's groups may have restored. */
export const NOT_ENTITLED = 'tenant:not-entitled';

/** Empty counts for one request. */
export function createWithheldCounts(): WithheldCounts {
  return new Map();
}

/** Counts one withheld restore of `secret` for `reason`. */
export function countWithheld(counts: WithheldCounts, secret: number, reason: string): void {
  let byReason = counts.get(secret);
  if (byReason === undefined) {
    byReason = new Map();
    counts.set(secret, byReason);
  }
  byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
}

/** The counts by secret name (names sharing a value are shown joined, detected credentials as `detected:<kind>`, as everywhere else). */
export function namedWithheld(set: Pick<SecretSet, 'nameFor'> | undefined, counts: WithheldCounts): WithheldByName {
  const out: WithheldByName = {};
  if (set === undefined) return out;
  for (const [secret, byReason] of counts) {
    const name = set.nameFor(secret);
    const into = (out[name] ??= {});
    for (const [reason, n] of byReason) into[reason] = (into[reason] ?? 0) + n;
  }
  return out;
}

/** Adds one request's counts into run totals. */
export function addWithheld(into: WithheldByName, from: WithheldByName): number {
  let total = 0;
  for (const [name, byReason] of Object.entries(from)) {
    const target = (into[name] ??= {});
    for (const [reason, n] of Object.entries(byReason)) {
      target[reason] = (target[reason] ?? 0) + n;
      total += n;
    }
  }
  return total;
}

/**
 * One line naming what was withheld and how to allow it, e.g. `2 restore(s) withheld from tool calls:
 * GITHUB_TOKEN network:evil.example ×2; to allow a host: --allow-host evil.example, or per secret:
 * ficta vault hosts GITHUB_TOKEN --add evil.example ([secrets.hosts] for env-file secrets)`.
 */
export function describeWithheld(byName: WithheldByName): string {
  let total = 0;
  const parts: string[] = [];
  const hosts = new Set<string>();
  let unreadable = false;
  let example: { name: string; host: string } | undefined;
  for (const [name, byReason] of Object.entries(byName).sort((a, b) => a[0].localeCompare(b[0]))) {
    for (const [reason, n] of Object.entries(byReason).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
      total += n;
      parts.push(`${name} ${reason}${n > 1 ? ` ×${n}` : ''}`);
      if (reason.startsWith('network:') && reason !== 'network:secret-in-hostname') {
        const host = reason.slice('network:'.length);
        hosts.add(host);
        example ??= { name: name.split('|')[0] as string, host };
      } else if (reason !== 'mode:never') unreadable = true;
    }
  }
  const how: string[] = [];
  if (example !== undefined) {
    how.push(`to allow a host: --allow-host ${[...hosts].slice(0, 3).join(' --allow-host ')}, or per secret: ficta vault hosts ${example.name} --add ${example.host} ([secrets.hosts] for env-file secrets)`);
  }
  if (unreadable) how.push('where the destination is not written out, name it literally or set restore.toolCalls = "all"');
  return `${total} restore(s) withheld from tool calls: ${parts.join(', ')}${how.length > 0 ? `; ${how.join('; ')}` : ''}`;
}
