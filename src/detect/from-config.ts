// The detector a config asks for: the built-in kinds (unless detection is off), the organisation's own
// formats, the PII kinds turned on, and the terms; undefined when there is nothing to detect.

import type { Config } from '../config/schema.ts';
import { customKind } from './custom.ts';
import { createDetector, type Detector } from './detector.ts';
import type { Kind } from './kind.ts';
import { piiKinds } from './pii/index.ts';
import { parseTerms, termKind } from './terms.ts';

/** The config's own kinds: custom detectors and PII when detection is on, terms always. */
export function configKinds(config: Pick<Config, 'detect' | 'secrets'>): Kind[] {
  const d = config.detect;
  const terms = termKind(parseTerms(config.secrets.terms));
  return [...(d.mode === 'off' ? [] : [...d.custom.map(customKind), ...piiKinds(d.pii, d.allow)]), ...(terms === undefined ? [] : [terms])];
}

/** The detector for the config, or undefined when detection is off and no term is set. */
export function detectorFor(config: Pick<Config, 'detect' | 'secrets'>): Detector | undefined {
  const extra = configKinds(config);
  if (config.detect.mode === 'off' && extra.length === 0) return undefined;
  return createDetector({ allow: config.detect.allow, extra, builtins: config.detect.mode !== 'off' });
}
