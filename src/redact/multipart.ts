// Multipart framing (RFC 2046 §5.1, multipart/form-data RFC 7578): where each part's header block and
// body lie, and the part's own content type, so a JSON, JSONL or text part can be redacted like a body of
// that type while the framing and binary parts pass byte-exact.

/** One part: its header block [headerStart, headerEnd) and body [bodyStart, bodyEnd), CRLFs excluded. */
export interface MultipartPart {
  headerStart: number;
  headerEnd: number;
  bodyStart: number;
  bodyEnd: number;
  /** The part's Content-Type, lowercased, or undefined. */
  contentType: string | undefined;
  /** The part's Content-Transfer-Encoding, lowercased, or undefined. */
  transferEncoding: string | undefined;
}

/** The boundary parameter of a multipart content type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,200})"|([^\s;,"]{1,200}))/i.exec(contentType);
  return m === null ? undefined : (m[1] ?? m[2]);
}

/** The parts of a multipart body, or undefined when its framing is not what the boundary says. */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] | undefined {
  const dash = Buffer.from(`--${boundary}`, 'latin1');
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  const headerGap = Buffer.from('\r\n\r\n', 'latin1');
  // The first boundary opens the body or follows a preamble line.
  let at = body.subarray(0, dash.length).equals(dash) ? 0 : body.indexOf(delimiter);
  if (at === -1) return undefined;
  if (at !== 0) at += 2;
  const parts: MultipartPart[] = [];
  for (;;) {
    let p = at + dash.length;
    if (body[p] === 0x2d && body[p + 1] === 0x2d) return parts; // closing delimiter
    while (body[p] === 0x20 || body[p] === 0x09) p++; // transport padding
    if (body[p] !== 0x0d || body[p + 1] !== 0x0a) return undefined;
    const headerStart = p + 2;
    let headerEnd: number;
    let bodyStart: number;
    if (body[headerStart] === 0x0d && body[headerStart + 1] === 0x0a) {
      headerEnd = headerStart;
      bodyStart = headerStart + 2;
    } else {
      const gap = body.indexOf(headerGap, headerStart);
      if (gap === -1) return undefined;
      headerEnd = gap;
      bodyStart = gap + 4;
    }
    const next = body.indexOf(delimiter, bodyStart - 2 < headerEnd ? headerEnd : bodyStart - 2);
    if (next === -1) return undefined;
    const bodyEnd = Math.max(bodyStart, next);
    const headers = body.toString('latin1', headerStart, headerEnd);
    parts.push({ headerStart, headerEnd, bodyStart, bodyEnd, contentType: headerField(headers, 'content-type'), transferEncoding: headerField(headers, 'content-transfer-encoding') });
    at = next + 2;
  }
}

function headerField(block: string, name: string): string | undefined {
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon !== -1 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim().toLowerCase();
  }
  return undefined;
}
