// Shorthand for the common kind: a fixed prefix (the anchor) followed by runs and literals.

import { ANCHOR, type Grammar, type Part } from './grammar.ts';
import type { Kind } from './kind.ts';

export interface PrefixedOptions {
  /** Verifies the token over [start, end) (a checksum, or a length rule); the body starts at anchorEnd. */
  check?: Grammar['check'];
  /** `check` verifies a checksum the format carries. */
  checksum?: boolean;
  /** Further grammars tried after the first (other layouts behind the same anchors). */
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
  const grammar = (p: readonly Part[]): Grammar => ({
    parts: [ANCHOR, ...p],
    ...(options.check === undefined ? {} : { check: options.check }),
    ...(options.edge === undefined ? {} : { edge: options.edge }),
    ...(options.structured === undefined ? {} : { structured: options.structured }),
    ...(options.valueAfterAnchor === undefined ? {} : { valueAfterAnchor: options.valueAfterAnchor }),
  });
  return {
    name,
    title,
    anchors,
    grammars: [grammar(parts), ...(options.alternatives ?? []).map(grammar)],
    checksum: options.checksum === true,
    source,
    ...(options.recall === undefined ? {} : { recall: options.recall }),
    ...(options.examples === undefined ? {} : { examples: options.examples }),
  };
}
