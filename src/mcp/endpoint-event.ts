// The older MCP HTTP+SSE transport opens with an `endpoint` event naming the URL the client posts its
// messages to, usually a path on the server's origin (`/messages?sessionId=…`). Resolved against ficta's
// address it would miss the `/mcp/<server>/` route, so the event is rewritten to lead back through it.
// Everything else in the stream passes byte for byte.

/** Bytes scanned for the `endpoint` event before the stream is passed on as it is. */
const MAX_SCAN = 64 * 1024;

export interface EndpointRewriter {
  /** The bytes to pass on now (possibly none while the first events are read). */
  write(chunk: Buffer): Buffer;
  /** What is still held, when the stream ends. */
  end(): Buffer;
}

/**
 * Rewrites the first `endpoint` event whose URL (resolved against `serverUrl`) is on the server's origin
 * to `routePath` + that URL's path and query (`routePath`: `/t/<token>/mcp/<server>`, the route as the
 * client reaches it). An endpoint on another origin is left as it is (the client goes there directly).
 */
export function createEndpointRewriter(serverUrl: URL, routePath: string): EndpointRewriter {
  let held: Buffer = Buffer.alloc(0);
  let done = false;
  return {
    write(chunk) {
      if (done) return chunk;
      held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
      let out: Buffer = Buffer.alloc(0);
      for (;;) {
        const end = eventEnd(held);
        if (end === -1) break;
        const event = held.subarray(0, end);
        held = held.subarray(end);
        const rewritten = rewriteEndpoint(event, serverUrl, routePath);
        out = Buffer.concat([out, rewritten ?? event]);
        if (rewritten !== undefined || isEndpoint(event)) {
          done = true;
          break;
        }
      }
      if (!done && out.length + held.length > MAX_SCAN) done = true;
      if (done) {
        out = Buffer.concat([out, held]);
        held = Buffer.alloc(0);
      }
      return out;
    },
    end() {
      const rest = held;
      held = Buffer.alloc(0);
      done = true;
      return rest;
    },
  };
}

/** Offset just past the first blank line (`\n\n`, `\r\n\r\n`, `\r\r`), or -1. */
function eventEnd(buf: Buffer): number {
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c !== 0x0a && c !== 0x0d) continue;
    const next = c === 0x0d && buf[i + 1] === 0x0a ? i + 2 : i + 1;
    const d = buf[next];
    if (d === 0x0a) return next + 1;
    if (d === 0x0d) return buf[next + 1] === 0x0a ? next + 2 : buf.length > next + 1 ? next + 1 : -1;
  }
  return -1;
}

function lines(event: Buffer): string[] {
  return event.toString('utf8').split(/\r\n|\r|\n/);
}

function isEndpoint(event: Buffer): boolean {
  return lines(event).some((l) => l === 'event: endpoint' || l === 'event:endpoint');
}

function rewriteEndpoint(event: Buffer, serverUrl: URL, routePath: string): Buffer | undefined {
  if (!isEndpoint(event)) return undefined;
  const text = event.toString('utf8');
  const m = /^data: ?(.*)$/m.exec(text);
  if (m === null) return undefined;
  let target: URL;
  try {
    target = new URL((m[1] as string).trim(), serverUrl);
  } catch {
    return undefined;
  }
  if (target.origin !== serverUrl.origin) return undefined;
  const data = `${routePath}${target.pathname}${target.search}`;
  return Buffer.from(text.slice(0, m.index) + `data: ${data}` + text.slice(m.index + m[0].length), 'utf8');
}
