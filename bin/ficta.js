#!/usr/bin/env node
// Entry point of the `ficta` command: refuses an unsupported Node in one line, then loads the TypeScript
// sources through tsx and runs the CLI. Only syntax every Node since 14 parses may come before the check.
import { readFileSync } from 'node:fs';

const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const min = /(\d+)\.(\d+)\.(\d+)/.exec(engines).slice(1).map(Number);
const have = process.versions.node.split('.').map(Number);
const older = have[0] !== min[0] ? have[0] < min[0] : have[1] !== min[1] ? have[1] < min[1] : have[2] < min[2];
if (older) {
  process.stderr.write(`ficta: node: Node.js ${process.version} is not supported; ficta needs Node ${engines} (22 LTS from 22.19, 24 LTS or 26). See "Node.js" in the README for how to get one.\n`);
  process.exit(1);
}

const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
