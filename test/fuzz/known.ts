// Generator classes that fail on today's main only because of a bug issue 9 already lists and another
// branch is fixing (request: items 1-7, 12-14; restore: items 8-11). They are skipped, and the skip is
// printed, so `pnpm test` stays green meanwhile. Remove an entry when its fix merges; FUZZ_KNOWN=run
// runs them anyway, to check.

/** Request classes: class name → the issue item whose fix it waits for. */
export const KNOWN_REQUEST: Readonly<Record<string, string>> = {
  'env-duplicates': 'issue 9 item 1 (a name defined twice in one env file drops a value)',
  'encoding-repeated': 'issue 9 item 2 (only the first content-encoding line is read)',
  'multipart-escaped': 'issue 9 item 3 (multipart parts gated for raw and JSON-escaped forms only)',
  'multipart-percent': 'issue 9 item 3 (a percent-encoded value in a part)',
  'binary-escaped': 'issue 9 item 3 (octet-stream holding JSON with \\u escapes)',
  'percent-in-body': 'issue 9 item 3 ("every body kind is gated for every form"; here percent-encoded values in JSON and text bodies — see the fuzz report)',
  'json-escape-building': 'issue 9 item 4 (escapes that build escapes)',
  'json-nesting-deep': 'issue 9 item 5 (JSON text nested 4+ levels deep)',
  'path-segment': 'issue 9 item 6 (the request path is logged raw)',
  'path-matrix': 'issue 9 items 6 and 12 (path logged raw; the whole segment is re-encoded)',
  'path-dot': 'issue 9 item 7 (dot segments forwarded)',
  'form-mixed': 'issue 9 item 12 (form fields re-encoded around the value)',
  'query-mixed': 'issue 9 item 12 (the same component re-encoding, in the query string)',
  'headers-mixed': 'issue 9 item 12 (the whole header value re-encoded)',
  'many-hits': 'issue 9 item 14 (Math.max(...ends) overflows past ~125,000 hits: 500)',
  // Found by this suite, not listed in issue 9 (see the fuzz report); skipped until someone owns them.
  'json-ascii-nested': 'fuzz finding F1: a surrogate pair escaped at string depth 2+ (`\\ud83c\\udca1`) is not decoded (item 4\'s root rule)',
  'headers-plus': 'fuzz finding F2: `+` as space in a percent-encoded header value is not decoded',
  'escape-boundary': 'fuzz finding F3: a raw match that starts or ends inside a JSON escape is replaced, breaking the escape and the JSON',
};

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
