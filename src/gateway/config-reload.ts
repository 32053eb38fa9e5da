// What a changed gateway config means for a running instance: `[[sources]]`, the per-tenant limit and the
// token file apply at once; anything else (upstreams, listeners, detection, …) is named as needing a
// restart — a rolling one, since instances are interchangeable.

import type { Config } from '../config/schema.ts';
import type { SourceConfig } from './sources-config.ts';

export interface ConfigChange {
  /** The new `[[sources]]` list, when it changed (applied live: gateway/sources.ts `apply`). */
  sources?: SourceConfig[];
  maxConcurrent?: number;
  tokensFile?: string;
  tokensPoll?: number;
  /** Top-level keys (and `gateway.*` keys) that changed but only take effect on a restart. */
  restartNeeded: string[];
}

const LIVE_GATEWAY_KEYS = new Set(['maxConcurrent', 'tokensFile', 'tokensPoll']);

/** Compares the config an instance runs with and a newly read one. */
export function diffConfig(running: Config, next: Config): ConfigChange {
  const change: ConfigChange = { restartNeeded: [] };
  const keys = new Set([...Object.keys(running), ...Object.keys(next)]);
  for (const key of [...keys].sort()) {
    if (key === 'gateway') continue;
    if (key === 'sources') {
      if (!same(running.sources, next.sources)) change.sources = next.sources;
      continue;
    }
    if (!same((running as Record<string, unknown>)[key], (next as Record<string, unknown>)[key])) change.restartNeeded.push(key);
  }
  const a = running.gateway;
  const b = next.gateway;
  if (a === undefined || b === undefined) {
    if (a !== b) change.restartNeeded.push('gateway');
    return change;
  }
  for (const key of Object.keys({ ...a, ...b }).sort()) {
    const before = (a as Record<string, unknown>)[key];
    const after = (b as Record<string, unknown>)[key];
    if (same(before, after)) continue;
    if (!LIVE_GATEWAY_KEYS.has(key)) change.restartNeeded.push(`gateway.${key}`);
  }
  if (a.maxConcurrent !== b.maxConcurrent) change.maxConcurrent = b.maxConcurrent;
  if (a.tokensFile !== b.tokensFile) change.tokensFile = b.tokensFile;
  if (a.tokensPoll !== b.tokensPoll) change.tokensPoll = b.tokensPoll;
  return change;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
