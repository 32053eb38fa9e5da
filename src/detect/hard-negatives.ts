// The built-in hard negatives: text that looks like credentials to a pattern and is not (hashes, UUIDs,
// integrity strings, base64 blobs, lock files, documented examples, numbers and prose). A custom
// detector that finds anything here would redact ordinary traffic, so it is refused at load. Generated
// from a fixed seed: the same strings every start.

import { mulberry32 } from '../util/prng.ts';

export interface HardNegative {
  /** What it is, for the refusal message ("a git commit SHA"). */
  label: string;
  text: string;
}

const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

let cached: readonly HardNegative[] | undefined;

/** The hard negatives (built once). */
export function hardNegatives(): readonly HardNegative[] {
  cached ??= build();
  return cached;
}

function build(): HardNegative[] {
  const rnd = mulberry32(0x6f1c7a);
  const r = (alphabet: string, n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    return s;
  };
  const uuid = (): string => `${r(HEX, 8)}-${r(HEX, 4)}-4${r(HEX, 3)}-a${r(HEX, 3)}-${r(HEX, 12)}`;
  const out: HardNegative[] = [];
  for (let i = 0; i < 4; i++) {
    out.push(
      { label: 'a git commit SHA', text: `commit ${r(HEX, 40)}\nMerge: ${r(HEX, 7)} ${r(HEX, 7)}\n    uses: actions/checkout@${r(HEX, 40)}\n"sha": "${r(HEX, 40)}", "tree": {"sha":"${r(HEX, 40)}"}\n` },
      { label: 'a sha256 or md5 digest', text: `image: ghcr.io/acme/app@sha256:${r(HEX, 64)}\n${r(HEX, 64)}  release.tar.gz\n"md5": "${r(HEX, 32)}", "checksum": "${r(HEX, 64)}", "etag": "\\"${r(HEX, 32)}\\""\n` },
      { label: 'a UUID', text: `{"id": "${uuid()}", "sessionId": "${uuid()}", "requestId": "${uuid()}", "trace": "${uuid().toUpperCase()}"}\n` },
      { label: 'a base64 blob', text: `{"type":"base64","media_type":"image/png","data":"${r(B64, 600)}=="}\n${r(B64, 76)}\n${r(B64, 76)}\n` },
      { label: 'an integrity string', text: `"integrity": "sha512-${r(B64, 86)}==",\nresolution: {integrity: sha512-${r(B64, 86)}==}\n<script integrity="sha384-${r(B64, 64)}">\ngithub.com/acme/lib v1.2.${i} h1:${r(B64, 43)}=\n` },
      { label: 'an identifier in code', text: `const ${r(ALNUM, 1)}x${r(ALNUM, 12)} = require("./${r(HEX, 8)}.js"); // build ${r(ALNUM, 24)}\n<div class="css-${r(ALNUM, 6)} jsx-${Math.floor(rnd() * 1e9)}">\n` },
      { label: 'numbers', text: `{"created": ${1700000000 + Math.floor(rnd() * 1e8)}, "tokens": ${Math.floor(rnd() * 1e5)}, "id": ${Math.floor(rnd() * 1e15)}, "price": 12.${Math.floor(rnd() * 100)}}\n+1 415 555 ${Math.floor(1000 + rnd() * 8999)}\n` },
    );
  }
  out.push(
    { label: 'public key material', text: `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${r(B64, 43)} dev@laptop\n-----BEGIN PUBLIC KEY-----\n${r(B64, 64)}\n-----END PUBLIC KEY-----\n` },
    { label: 'a documented example key', text: 'AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY sk_test_4eC39HqLyjWDarjtT1zdp7dc\n' },
    { label: 'a placeholder', text: 'API_KEY=your_api_key_here TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx SECRET=<SECRET> KEY=${API_KEY} token: "..."\n' },
    {
      label: 'prose',
      text: 'The quick brown fox jumps over the lazy dog. Tokens, keys and secrets are configured in the settings page; see the README for the access token and the API key format.\n',
    },
  );
  return out;
}
