// `ficta gateway token add|list|revoke`: the tenants in the token file the config names. `add` prints the
// token once — exactly the token on stdout, one line — and stores only its SHA-256; nothing else ever
// shows a token.

import { readLastUsed } from '../gateway/last-used.ts';
import { addToken, readTokenFile, revokeToken } from '../gateway/token-file.ts';
import { usageError } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import { gatewayConfigFile, loadGatewayConfig } from './gateway-config.ts';
import type { CliIo } from './io.ts';

type Values = Record<string, string | boolean | string[] | undefined>;

const SPEC = { name: 'gateway token' };

export function runToken(positionals: readonly string[], values: Values, io: CliIo): number {
  const [action, name] = positionals;
  const configFile = gatewayConfigFile(typeof values.config === 'string' ? values.config : undefined, io.env);
  const groups = (values.group as string[] | undefined) ?? [];
  if (action === 'add' || action === 'revoke') {
    if (name === undefined) throw usageError(SPEC, `${action} needs NAME`);
  } else if (action === 'list') {
    if (name !== undefined) throw usageError(SPEC, 'list takes no NAME');
  } else throw usageError(SPEC, 'expected add NAME, list or revoke NAME');
  if (action !== 'add' && groups.length > 0) throw usageError(SPEC, '--group applies to add');
  const { gateway } = loadGatewayConfig({ configFile, env: io.env });

  if (action === 'add') {
    const added = addToken(gateway.tokensFile, name as string, groups);
    if (!added.ok) throw added.error;
    io.stdout.write(`${added.value.token}\n`);
    const g = added.value.entry.groups;
    io.stderr.write(`ficta: gateway: token of ${added.value.entry.name} (${g.length === 0 ? 'no groups' : `groups ${g.join(', ')}`}) added to ${gateway.tokensFile}; shown once, only its hash is stored\n`);
    return EXIT_OK;
  }
  if (action === 'revoke') {
    const revoked = revokeToken(gateway.tokensFile, name as string);
    if (!revoked.ok) throw revoked.error;
    io.stderr.write(`ficta: gateway: token of ${revoked.value.name} revoked in ${gateway.tokensFile}; running instances refuse it within ${Math.round(gateway.tokensPoll / 1000)} s (or at once on SIGHUP)\n`);
    return EXIT_OK;
  }
  const file = readTokenFile(gateway.tokensFile);
  if (!file.ok) throw file.error;
  const lastUsed = gateway.lastUsedFile === undefined ? {} : readLastUsed(gateway.lastUsedFile);
  const rows = file.value.tokens.map((t) => ({
    name: t.name,
    groups: t.groups,
    created: t.created,
    // Recorded per name: a revoked entry shows it only when it is from before the revocation.
    lastUsed: lastUsed[t.name] !== undefined && (t.revoked === undefined || Date.parse(lastUsed[t.name] as string) <= Date.parse(t.revoked)) ? (lastUsed[t.name] as string) : null,
    revoked: t.revoked ?? null,
  }));
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify({ tokens: rows })}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    io.stdout.write('no tokens (ficta gateway token add NAME --group G)\n');
    return EXIT_OK;
  }
  const table = [['NAME', 'GROUPS', 'CREATED', 'LAST USED', 'STATE'], ...rows.map((r) => [r.name, r.groups.join(',') || '-', day(r.created), r.lastUsed === null ? '-' : day(r.lastUsed), r.revoked === null ? 'active' : `revoked ${day(r.revoked)}`])];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  io.stdout.write(`${table.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n')}\n`);
  return EXIT_OK;
}

/** `2026-11-27 16:40` (UTC). */
function day(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}
