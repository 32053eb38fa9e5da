// What a credential kind is to the detector: its name, the anchors that join the automaton, how a hit
// is confirmed (declarative grammars, or a hand-written check for formats that need one) and where the
// format is documented.

import type { Grammar, Verdict } from './grammar.ts';

export type { Verdict } from './grammar.ts';

/** Where a custom confirm reports what it found. */
export interface Emit {
  /**
   * A credential of this kind at buf[start, end); `value` when the bytes are escaped (PEM in JSON);
   * `verdict` when not the kind's default (`verified` for a kind with a checksum, else `format`).
   */
  (start: number, end: number, value?: string, verdict?: Verdict): void;
  /** A companion credential of another kind (an AWS secret key next to its key id). */
  as(kind: string, start: number, end: number, value?: string): void;
}

/** A hand-written confirm: looks around the anchor at buf[anchorStart, anchorEnd) and emits what it finds. */
export type Confirm = (buf: Uint8Array, anchorStart: number, anchorEnd: number, emit: Emit) => void;

export interface Kind {
  /** Stable name used in logs, reports, 403 messages and `detect.allow` (e.g. `github-classic-pat`). */
  readonly name: string;
  /** For the table in docs/detection.md: provider and what the credential is. */
  readonly title: string;
  /** Literal byte strings the automaton looks for; a hit is only a candidate. */
  readonly anchors: readonly string[];
  /** Tried in order; the first that matches wins. */
  readonly grammars?: readonly Grammar[];
  /** Used instead of grammars for formats a grammar cannot say. */
  readonly confirm?: Confirm;
  /** With a confirm: the bytes that may follow an anchor (a charset spec such as `A-Z0-9`; default any). */
  readonly follows?: string;
  /** The format carries a checksum that is verified (a match that fails it is reported `unverified`). */
  readonly checksum: boolean;
  /** Where the format is documented (provider docs, or the scanner rule that describes it). */
  readonly source: string;
  /**
   * Found only from its surroundings (a URL password, an AWS secret key next to its key id): once seen,
   * the value itself is searched for in later requests, since it may come back bare.
   */
  readonly recall?: boolean;
  /** Values published in the provider's documentation: never reported. */
  readonly examples?: readonly string[];
  /**
   * Values may hold a character JSON escapes (a line break, a quote, a backslash): nested four or more
   * string levels deep, such a value shows only once its string is decoded, so a hit of one of the kind's
   * anchors turns on the search for deep runs of backslashes (views.ts). Default: from the grammars' byte
   * classes; a custom confirm reads any byte, so true unless the kind says false.
   */
  readonly escapable?: boolean;
  /** With a confirm: the ASCII bytes it reads (a charset spec); default every printable byte and line ends. */
  readonly reads?: string;
  /** Code points past ASCII its values may hold (a term such as `Müller`): a `\u` escape of one may hide a value. */
  readonly codePoints?: readonly number[];
  /** Redacted even in detection's `block` mode, like a registered secret (terms). */
  readonly alwaysRedact?: boolean;
  /** The name a value of this kind is counted under, when not `detected:<kind>` (a term's own name). */
  readonly label?: (value: string) => string;
}
