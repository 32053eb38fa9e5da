// Decides how a request body is read: JSON, other text, a form, a multipart body (whose parts are read by
// their own types), or opaque bytes that are forwarded byte-exact (audio, images, octet-stream) and only gated.

import { isUtf8 } from 'node:buffer';

export type BodyKind = 'json' | 'text' | 'form' | 'multipart' | 'binary';

const BINARY_TYPES = /^(multipart\/|audio\/|image\/|video\/|font\/|application\/(octet-stream|pdf|zip|gzip|x-tar|wasm|protobuf|x-protobuf|vnd\.))/;

/** Classifies a body by its content-type, sniffing when the type is missing or unknown. */
export function classifyBody(contentType: string | undefined, body: Buffer): BodyKind {
  const type = (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (type.includes('json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.startsWith('multipart/')) return 'multipart';
  if (BINARY_TYPES.test(type)) return 'binary';
  if (type.startsWith('text/') || type.endsWith('+xml') || type === 'application/xml' || type === 'application/javascript') return 'text';
  return sniff(body);
}

function sniff(body: Buffer): BodyKind {
  for (let i = 0; i < body.length; i++) {
    const b = body[i] as number;
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
    if (b === 0x7b || b === 0x5b) return 'json';
    break;
  }
  return isUtf8(body) ? 'text' : 'binary';
}
