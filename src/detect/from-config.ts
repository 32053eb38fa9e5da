// The detector a config asks for: the built-in kinds (unless detection is off), the organisation's own
// formats, the PII kinds turned on, and the terms; undefined when there is nothing to detect.

import type { Config } from '../config/schema.ts';
import { customKind } from './custom.ts';
import { createDetector, type Detector } from './detector.ts';
import type { Detection } from '../redact/secret-set.ts';
import type { Kind } from './kind.ts';
import { createDetectedStore } from './store.ts';
import { piiKinds } from './pii/index.ts';
import { parseTerms, termKind, type TermInput } from './terms.ts';

/** The config's own kinds: custom detectors and PII when detection is on, terms (the config's and `more`) always. */
export function configKinds(config: Pick<Config, 'detect' | 'secrets'>, more: readonly TermInput[] = []): Kind[] {
  const d = config.detect;
  const terms = termKind([...parseTerms(config.secrets.terms), ...more]);
  return [...(d.mode === 'off' ? [] : [...d.custom.map(customKind), ...piiKinds(d.pii, d.allow)]), ...(terms === undefined ? [] : [terms])];
}

/** The detector for the config, or undefined when detection is off and no term is set. */
export function detectorFor(config: Pick<Config, 'detect' | 'secrets'>, more: readonly TermInput[] = []): Detector | undefined {
  const extra = configKinds(config, more);
  if (config.detect.mode === 'off' && extra.length === 0) return undefined;
  return createDetector({ allow: config.detect.allow, extra, builtins: config.detect.mode !== 'off' });
}

/**
 * Detection for the life of a proxy, as a function of the terms its sources hold (vault records added
 * with `--term`): one store throughout; the detector is rebuilt only when the terms change.
 */
export function createDetectionFor(
  config: Pick<Config, 'detect' | 'secrets'>,
  /** A gateway's keyed fingerprint: detected values are then kept per tenant under it (src/gateway/tenant-set.ts). */
  fingerprint?: (value: string) => string,
): (terms: readonly TermInput[]) => Detection | undefined {
  const d = config.detect;
  const store = createDetectedStore({ maxEntries: d.maxEntries, maxBytes: d.maxBytes, ...(fingerprint === undefined ? {} : { fingerprint }) });
  const mode = d.mode === 'off' ? 'redact' : d.mode;
  let last: { key: string; detection: Detection | undefined } | undefined;
  return (terms) => {
    const key = JSON.stringify(terms.map((t) => [t.name, t.value]));
    if (last?.key === key) return last.detection;
    // With detection off, terms still need the detector and the store: they are redacted like secrets.
    const detector = detectorFor(config, terms);
    last = { key, detection: detector === undefined ? undefined : { detector, store, mode } };
    return last.detection;
  };
}
