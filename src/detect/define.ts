// Shorthand for the common kind: a fixed prefix (the anchor) followed by runs and literals.

import { ANCHOR, type Grammar, type Part } from './grammar.ts';
import type { Kind } from './kind.ts';

export interface PrefixedOptions {
  /** A shape rule over the token [start, end) (a length or padding rule); the body starts at anchorEnd. */
  check?: Grammar['check'];
  /** The checksum the format carries, on the first grammar only: a token that fails it is `unverified`. */
  verify?: Grammar['verify'];
  /** The format carries a checksum (implied by `verify`). */
  checksum?: boolean;
  /** Further grammars tried after the first (other layouts behind the same anchors, without a checksum). */
  alternatives?: ReadonlyArray<readonly Part[]>;
  recall?: boolean;
  examples?: readonly string[];
  edge?: Grammar['edge'];
  structured?: boolean;
  valueAfterAnchor?: boolean;
}

/** A kind whose tokens are one of `anchors` followed by `parts`. */
export function prefixed(
  name: string,
  title: string,
  anchors: readonly string[],
  parts: readonly Part[],
  source: string,
  options: PrefixedOptions = {},
): Kind {
  const grammar = (p: readonly Part[], first = false): Grammar => ({
    parts: [ANCHOR, ...p],
    ...(first && options.verify !== undefined ? { verify: options.verify } : {}),
    ...(options.check === undefined ? {} : { check: options.check }),
    ...(options.edge === undefined ? {} : { edge: options.edge }),
    ...(options.structured === undefined ? {} : { structured: options.structured }),
    ...(options.valueAfterAnchor === undefined ? {} : { valueAfterAnchor: options.valueAfterAnchor }),
  });
  return {
    name,
    title,
    anchors,
    grammars: [grammar(parts, true), ...(options.alternatives ?? []).map((p) => grammar(p))],
    checksum: options.checksum === true || options.verify !== undefined,
    source,
    ...(options.recall === undefined ? {} : { recall: options.recall }),
    ...(options.examples === undefined ? {} : { examples: options.examples }),
  };
}
