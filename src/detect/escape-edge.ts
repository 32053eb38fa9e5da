// Whether the bytes just before a position end an escape (`\n` in a JSON string, `\u00e9`, `%2F`): the
// letter or hex digit there is part of the escape, so it separates words in the text the escape encodes.

const isHex = (b: number | undefined): boolean => b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

/** Backslashes directly before `at`. */
function backslashesBefore(buf: Uint8Array, at: number): number {
  let k = 0;
  while (at - k > 0 && buf[at - k - 1] === 0x5c) k++;
  return k;
}

/** True when buf[.., start) ends a JSON escape of a control character or a `\u` escape, or a percent escape. */
export function escapeEndsAt(buf: Uint8Array, start: number): boolean {
  const b = buf[start - 1];
  if (b === undefined) return false;
  if ((b === 0x6e || b === 0x72 || b === 0x74 || b === 0x62 || b === 0x66) && backslashesBefore(buf, start - 1) % 2 === 1) return true;
  if (start >= 6 && buf[start - 5] === 0x75 && isHex(buf[start - 4]) && isHex(buf[start - 3]) && isHex(buf[start - 2]) && isHex(b) && backslashesBefore(buf, start - 5) % 2 === 1) return true;
  return start >= 3 && buf[start - 3] === 0x25 && isHex(buf[start - 2]) && isHex(b);
}

/** Where text starts at or after `s` when buf[s] may be the letter of an escape (`\n` + `john@…`): past the escape. */
export function pastEscape(buf: Uint8Array, s: number): number {
  if (s === 0 || backslashesBefore(buf, s) % 2 === 0) return s;
  return buf[s] === 0x75 ? s + 5 : s + 1;
}
