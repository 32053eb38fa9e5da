// What a command may touch of the outside world, so tests can run commands in-process.

import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: NodeJS.ProcessEnv;
}

/** The real process streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** A command module: parses its own arguments, returns the exit code. */
export interface Command {
  run(argv: string[], io: CliIo): Promise<number>;
}
