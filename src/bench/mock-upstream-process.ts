// Entry point of the mock upstream's own process: reads its config (a JSON file named on the command
// line), listens on loopback and prints `mock upstream listening on <port>` when ready. Exits on SIGTERM
// or when its parent goes away (stdin closes).

import { readFileSync } from 'node:fs';
import { startMockUpstream, type MockUpstreamConfig } from './mock-upstream.ts';

const configPath = process.argv[2];
if (configPath === undefined) {
  process.stderr.write('usage: mock-upstream-process.ts CONFIG.json\n');
  process.exit(2);
}
const config = JSON.parse(readFileSync(configPath, 'utf8')) as MockUpstreamConfig;
const { server, port } = await startMockUpstream(config);
process.stdout.write(`mock upstream listening on ${port}\n`);

const stop = (): void => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
