// The Argon2id worker: derives one key and exits, so the WebAssembly heap Argon2id grows (256 MiB at
// MODERATE) is released with the thread instead of staying in the proxy for its lifetime.

import { parentPort } from 'node:worker_threads';
import { argon2id, initSeal, wipe } from './seal.ts';

export interface KdfRequest {
  passphrase: Uint8Array;
  salt: Uint8Array;
  ops: number;
  mem: number;
}

export type KdfReply = { ok: true; key: Uint8Array } | { ok: false; message: string };

const port = parentPort;
if (port !== null) {
  port.once('message', (request: KdfRequest) => {
    void (async () => {
      let reply: KdfReply;
      try {
        await initSeal();
        const key = argon2id(request.passphrase, request.salt, request.ops, request.mem);
        reply = { ok: true, key: new Uint8Array(key) };
        wipe(key);
      } catch (error) {
        reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
      } finally {
        wipe(request.passphrase);
      }
      port.postMessage(reply, reply.ok ? [reply.key.buffer as ArrayBuffer] : []);
    })();
  });
}
