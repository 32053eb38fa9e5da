// Credential kinds that are not service tokens: private key blocks (PEM, OpenSSH, OpenPGP), age
// secret keys, signed JWTs and passwords in URLs.

import { checksumBech32Age } from './age.ts';
import { confirmJwt } from './jwt.ts';
import { confirmPrivateKeyBlock } from './pem.ts';
import { confirmUrlPassword } from './url-password.ts';
import type { Kind } from '../kind.ts';

const PEM_LABELS = ['RSA PRIVATE KEY', 'EC PRIVATE KEY', 'DSA PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'ED25519 PRIVATE KEY'];

/** The jwt.io debugger's sample token, printed in countless tutorials. */
const JWT_IO_EXAMPLE = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

export const KEY_KINDS: readonly Kind[] = [
  {
    name: 'private-key',
    title: 'PEM private key block (PKCS#1, PKCS#8, SEC 1, encrypted)',
    anchors: PEM_LABELS.map((l) => `-----BEGIN ${l}-----`),
    confirm: confirmPrivateKeyBlock,
    // A line end (raw or JSON-escaped) or the space of a key flattened onto one line.
    follows: '\n\r \\',
    checksum: false,
    source: 'https://www.rfc-editor.org/rfc/rfc7468',
  },
  {
    name: 'openssh-private-key',
    title: 'OpenSSH private key block',
    anchors: ['-----BEGIN OPENSSH PRIVATE KEY-----'],
    confirm: confirmPrivateKeyBlock,
    // A line end (raw or JSON-escaped) or the space of a key flattened onto one line.
    follows: '\n\r \\',
    checksum: false,
    source: 'https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.key',
  },
  {
    name: 'pgp-private-key',
    title: 'OpenPGP secret key block (ASCII armor)',
    anchors: ['-----BEGIN PGP PRIVATE KEY BLOCK-----'],
    confirm: confirmPrivateKeyBlock,
    // A line end (raw or JSON-escaped) or the space of a key flattened onto one line.
    follows: '\n\r \\',
    checksum: false,
    source: 'https://www.rfc-editor.org/rfc/rfc9580#section-6',
  },
  {
    name: 'age-secret-key',
    title: 'age secret key (Bech32, with its checksum)',
    anchors: ['AGE-SECRET-KEY-1'],
    confirm: checksumBech32Age,
    follows: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L',
    // Bech32 / base64url: no character JSON escapes.
    escapable: false,
    checksum: true,
    source: 'https://age-encryption.org/v1',
  },
  {
    name: 'jwt',
    title: 'JSON Web Token (header naming an algorithm, payload, signature; unsigned: unverified)',
    anchors: ['eyJ'],
    confirm: confirmJwt,
    follows: 'A-Za-z0-9_-',
    // base64url and dots: no character JSON escapes.
    escapable: false,
    checksum: false,
    source: 'https://www.rfc-editor.org/rfc/rfc7519',
    examples: [JWT_IO_EXAMPLE],
  },
  {
    name: 'url-password',
    title: 'Password in a URL (scheme://user:password@host), connection strings included',
    // `:\/\/` is the same separator in JSON written with escaped slashes (PHP).
    anchors: ['://', ':\\/\\/'],
    confirm: confirmUrlPassword,
    // The first byte of the userinfo (the user may be empty: `redis://:password@host`).
    follows: "A-Za-z0-9._~%!$&'*+,;=:-",
    // The password stops at quotes, backslashes and control bytes (confirmUrlPassword's STOP).
    escapable: false,
    checksum: false,
    recall: true,
    source: 'https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1',
  },
];
