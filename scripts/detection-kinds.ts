// Prints the kinds table of the detection documentation from the kinds themselves: name, what it is,
// each grammar (anchor, literals and byte-class runs, the checksum where one is verified) and where its
// format comes from, so the page says exactly what the detectors accept.
// Run: node --import tsx scripts/detection-kinds.ts > table.md

import { ANCHOR, type Grammar, type Part, type Run } from '../src/detect/grammar.ts';
import type { Kind } from '../src/detect/kind.ts';
import { AI_KINDS } from '../src/detect/kinds/ai.ts';
import { BUSINESS_KINDS } from '../src/detect/kinds/business.ts';
import { CLOUD_KINDS } from '../src/detect/kinds/cloud.ts';
import { KEY_KINDS } from '../src/detect/kinds/keys.ts';
import { SOURCE_CONTROL_KINDS } from '../src/detect/kinds/source-control.ts';
import { WEBHOOK_KINDS } from '../src/detect/kinds/webhooks.ts';

/** What the hand-written confirms accept, said once (they are code, not grammars). */
const CONFIRMS: Record<string, string> = {
  'aws-access-key-id': 'anchor + `[A-Z0-9]{16}`; a 40-character secret key within 256 bytes is reported as aws-secret-access-key',
  'aws-secret-access-key': '40 characters of the base64 alphabet within 256 bytes of an access key id, either side',
  'azure-sas-signature': '`sig=` + percent-encoded base64 of an HMAC-SHA256 (about 43 characters and `=`), in a query that also carries `sv=`',
  'private-key': 'BEGIN line, base64 lines (≥ 64 bytes; armor headers allowed), END line with the same label; lines split by newlines, CRLF, spaces or JSON escapes (`\\n`, `\\\\n`, …); a head of ≥ 256 bytes without END too',
  'openssh-private-key': 'as private-key',
  'pgp-private-key': 'as private-key',
  'age-secret-key': '`AGE-SECRET-KEY-1` + Bech32 data, **Bech32 checksum**',
  jwt: '`eyJ…` header (base64url JSON naming an `alg` other than `none`) `.` `eyJ…` payload `.` signature of ≥ 16; without the signature: unverified',
  'url-password': '`scheme://user:password@host`; not a template (`${…}`, `{{…}}`, `$(…)`), not a stand-in, not the user again',
};

function set(r: Run): string {
  const ranges: string[] = [];
  for (let b = 0; b < 256; b++) {
    if (r.set[b] !== 1) continue;
    let e = b;
    while (e + 1 < 256 && r.set[e + 1] === 1) e++;
    const c = (x: number): string => (x === 0x2d ? '\\-' : x === 0x5d ? '\\]' : x === 0x7c ? '\\|' : String.fromCharCode(x));
    ranges.push(e - b >= 2 ? `${c(b)}-${c(e)}` : e === b ? c(b) : `${c(b)}${c(e)}`);
    b = e;
  }
  return `[${ranges.join('')}]`;
}

function part(p: Part, anchors: readonly string[]): string {
  if (p === ANCHOR) return anchors.length === 1 ? `\`${anchors[0]}\`` : 'anchor';
  if (typeof p === 'string') return `\`${p}\``;
  const r = p as Run;
  return `\`${set(r)}{${r.min === r.max ? r.min : `${r.min},${r.max}`}}\``;
}

function grammar(g: Grammar, anchors: readonly string[], first: boolean): string {
  const parts = g.parts.map((p) => part(p, anchors)).join(' ');
  return `${parts}${g.verify !== undefined && first ? ' + **CRC32 (base62)**' : ''}${g.valueAfterAnchor === true ? ' (the part after the anchor)' : ''}`;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const FAMILIES: ReadonlyArray<[string, readonly Kind[]]> = [
  ['Source control, CI/CD and package registries', SOURCE_CONTROL_KINDS],
  ['Cloud and infrastructure', CLOUD_KINDS],
  ['AI providers', AI_KINDS],
  ['SaaS, payments and messaging', BUSINESS_KINDS],
  ['Keys, JWTs and URL passwords', KEY_KINDS],
  ['Webhook URLs (more)', WEBHOOK_KINDS],
];
const out: string[] = [];
for (const [family, kinds] of FAMILIES) {
  out.push(`### ${family}`, '', '| kind | what | anchors | grammar | source |', '|---|---|---|---|---|');
  for (const k of kinds) {
    const anchors = k.anchors.filter((a) => !a.includes('\\/'));
    const grammars = k.grammars?.map((g, i) => grammar(g, anchors, i === 0)).join('<br>or ') ?? CONFIRMS[k.name] ?? 'hand-written confirm';
    out.push(`| ${k.name} | ${cell(k.title)} | ${anchors.map((a) => `\`${cell(a)}\``).join(', ') || '(companion)'} | ${cell(grammars)} | [${new URL(k.source).hostname}](${k.source}) |`);
  }
  out.push('');
}
process.stdout.write(`${out.join('\n')}\n`);
