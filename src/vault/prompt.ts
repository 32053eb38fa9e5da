// Prompts on a terminal: a hidden one (raw-mode stdin, nothing echoed, line editing limited to backspace
// and Ctrl-U; Ctrl-C interrupts, Ctrl-D aborts) and a yes/no question. The prompt text goes to the given
// stream (stderr), never the answer.

import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';

/** A readable that may be a terminal (process.stdin is a tty.ReadStream when it is). */
export type MaybeTty = Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (mode: boolean) => unknown };

/** True when `input` is a terminal that a hidden prompt can use. */
export function canPrompt(input: Readable): boolean {
  const tty = input as MaybeTty;
  return tty.isTTY === true && typeof tty.setRawMode === 'function';
}

/** Asks `question` on `output` and reads one line from the terminal `input` without echoing it. */
export function promptHidden(question: string, input: Readable, output: Writable): Promise<Result<string>> {
  const tty = input as MaybeTty;
  if (!canPrompt(input)) return Promise.resolve(err(vaultError('FICTA_VAULT_LOCKED', 'cannot prompt: stdin is not a terminal')));
  // Raw mode first, then the question: a key typed as soon as the question shows must not be echoed or
  // turned into a signal by the terminal.
  const wasRaw = tty.isRaw === true;
  tty.setRawMode?.(true);
  output.write(question);
  const decoder = new StringDecoder('utf8');
  let answer: string[] = [];
  // ANSI escape sequences (arrow keys, bracketed-paste markers) are dropped: 1 = after ESC, 2 = inside CSI/SS3.
  let escape = 0;

  return new Promise((resolve) => {
    const finish = (result: Result<string>): void => {
      input.off('data', onData);
      tty.setRawMode?.(wasRaw);
      input.pause();
      output.write('\n');
      resolve(result);
    };
    const onData = (chunk: Buffer | string): void => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (const ch of text) {
        if (escape === 1) { escape = ch === '[' || ch === 'O' ? 2 : 0; continue; }
        if (escape === 2) {
          if (ch >= '@' && ch <= '~') escape = 0; // the final byte of the sequence (ECMA-48)
          continue;
        }
        if (ch === '\r' || ch === '\n') { finish(ok(answer.join(''))); return; }
        if (ch === '\u0003') { finish(err(interrupted())); return; }
        if (ch === '\u0004') {
          if (answer.length === 0) { finish(err(vaultError('FICTA_VAULT_PROMPT_ABORTED', 'prompt cancelled (end of input)'))); return; }
          finish(ok(answer.join('')));
          return;
        }
        if (ch === '\u007f' || ch === '\b') { answer.pop(); continue; }
        if (ch === '\u0015') { answer = []; continue; }
        if (ch === '\u001b') { escape = 1; continue; }
        if (ch < ' ') continue; // other control characters are not part of a passphrase or token
        answer.push(ch);
      }
    };
    input.on('data', onData);
    input.resume();
  });
}

/** Ctrl-C at a prompt: the command stops with exit code 130, as if interrupted by SIGINT. */
function interrupted(): FictaError {
  return new FictaError('FICTA_INTERRUPTED', 'vault: interrupted at the prompt (Ctrl-C); nothing was changed');
}

/** Asks a yes/no `question` on the terminal `input`; true only for y or Y (Enter, n or anything else: no). */
export function confirm(question: string, input: Readable, output: Writable): Promise<Result<boolean>> {
  const tty = input as MaybeTty;
  if (!canPrompt(input)) return Promise.resolve(err(vaultError('FICTA_VAULT_LOCKED', 'cannot ask: stdin is not a terminal')));
  const wasRaw = tty.isRaw === true;
  tty.setRawMode?.(true);
  output.write(`${question} [y/N] `);
  return new Promise((resolve) => {
    const onData = (chunk: Buffer | string): void => {
      const ch = (typeof chunk === 'string' ? chunk : chunk.toString('utf8')).charAt(0);
      input.off('data', onData);
      tty.setRawMode?.(wasRaw);
      input.pause();
      if (ch === '\u0003') {
        output.write('\n');
        resolve(err(interrupted()));
        return;
      }
      const yes = ch === 'y' || ch === 'Y';
      output.write(`${yes ? 'y' : 'n'}\n`);
      resolve(ok(yes));
    };
    input.on('data', onData);
    input.resume();
  });
}
