// What a command may touch of the outside world, so tests can run commands in-process, and the shape
// every command module has (its spec for help and completion, and its run function).

import type { Readable, Writable } from 'node:stream';
import type { CommandSpec } from './args.ts';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  /** The working directory zero-config discovery reads (and a wrapped command starts in); default process.cwd(). */
  cwd?: string;
}

/** The real process streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** A command module: declares its options (help, completion and did-you-mean come from it) and runs. */
export interface Command {
  spec: CommandSpec;
  run(argv: string[], io: CliIo): Promise<number>;
}
