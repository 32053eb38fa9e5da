// TOML parsing (smol-toml), for ficta's config file and the agents' own (Codex config.toml).

import { parse } from 'smol-toml';

/** Parses TOML text; throws on invalid input (the error names line and column, never quotes the text at length). */
export function parseToml(text: string): Record<string, unknown> {
  return parse(text) as Record<string, unknown>;
}
