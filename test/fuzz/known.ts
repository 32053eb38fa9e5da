// Generator classes that fail on today's main only because of a bug issue 9 already lists and another
// branch is fixing (request: items 1-7, 12-14; restore: items 8-11). They are skipped, and the skip is
// printed, so `pnpm test` stays green meanwhile. Remove an entry when its fix merges; FUZZ_KNOWN=run
// runs them anyway, to check.

/** Request classes: class name → the issue item whose fix it waits for. */
export const KNOWN_REQUEST: Readonly<Record<string, string>> = {};

/** Response classes: class name → the issue item whose fix it waits for. */
export const KNOWN_RESPONSE: Readonly<Record<string, string>> = {
  'json-long-string': 'issue 9 item 8 (a string longer than the look-back window)',
  'prose-brackets': 'issue 9 item 8 (prose opening with [ restored differently in done copies and bodies)',
  'tool-args-nested-json': 'issue 9 item 8 (JSON text in streamed tool arguments escaped once)',
  'json-as-text': 'issue 9 item 9 (JSON labelled text/plain comes back invalid)',
  'no-content-type': 'issue 9 item 9 (body kind decided from the first TCP chunk)',
  'sse-raw-bytes': 'issue 9 item 10 (rewritten events are re-serialised)',
  'sse-multiline': 'issue 9 item 10 (rewritten events are re-serialised onto one data line)',
  'surrogate-split': 'issue 9 item 11 (a lone surrogate next to a placeholder becomes U+FFFD)',
  'generic-sse-text': 'issue 9 items 11 and 10 (a value with CR/LF breaks plain-text SSE framing; `data:` rewritten)',
  'chat-finish-split': 'issue 9 item 11 (a placeholder split into the finish_reason chunk reaches the client raw)',
  'generic-sse-keys': 'issue 9 item 11 (a placeholder used as a JSON key in an SSE event is not restored)',
};
