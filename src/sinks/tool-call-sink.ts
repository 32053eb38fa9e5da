// The restorers' sink (src/restore/restore-sink.ts) for one response under the tool-call rule: each complete
// call goes through the gate (tool-call-gate.ts), a whole-value copy of a streamed call is decided as the
// stream was and counted once, and a stream that failed closed keeps every copy of it unrestored too. A
// provider-hosted MCP tool is decided against the host of the server the request declared for it.

import type { RestoreSink, SinkCall } from '../restore/restore-sink.ts';
import type { Edit } from '../restore/framing.ts';
import type { ToolCallGate } from './tool-call-gate.ts';

/** What a response remembers of a streamed call that held placeholders. */
interface Decided {
  /** The tool name the decision used (copies use it too, whatever name they carry). */
  name: string;
  /** The hosted MCP server the call named (copies use it too). */
  server: string | undefined;
  /** Failed closed: copies stay as they are. */
  failed: boolean;
}

/** Provider-hosted MCP servers a request declared: server label → its URL's host. */
export type HostedMcpServers = ReadonlyMap<string, string>;

/** A sink over `gate` for one response in wire format `format` (for the log); `all` restores tool calls like text. */
export function createToolCallSink(gate: ToolCallGate, format: string, hosted: HostedMcpServers = new Map()): RestoreSink {
  const decided = new Map<string, Decided>();
  const record = (call: SinkCall, failed: boolean): void => {
    if (call.key === undefined) return;
    const prev = decided.get(call.key);
    decided.set(call.key, { name: prev?.name ?? call.tool.name ?? '', server: prev?.server ?? call.tool.server, failed: failed || prev?.failed === true });
  };
  return {
    guarding: gate.mode !== 'all',
    holds: gate.mode === 'guarded',
    decide(call): Edit[] {
      const prev = call.key === undefined ? undefined : decided.get(call.key);
      if (call.copy && prev?.failed === true) return [];
      const name = prev?.name ?? call.tool.name ?? '';
      const server = prev === undefined ? call.tool.server : prev.server;
      // A copy of a call decided before is not counted again; anything seen first here is (and its later copies are not).
      const counted = !(call.copy && prev !== undefined);
      const r = gate.restore({ format, name, kind: call.kind, raw: call.raw, depth: call.depth, ...(server === undefined ? {} : { hosted: { server, host: hosted.get(server) } }) }, { count: counted });
      if (r.restored + r.withheld > 0 && counted) record(call, false);
      return r.edits;
    },
    withhold(call, reason) {
      gate.withholdAll(call.raw, reason);
      record(call, true);
    },
  };
}
