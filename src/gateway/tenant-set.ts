// A gateway tenant's view of the shared secret set, made per request: the same matcher, values and
// fingerprint table, the tenant's own placeholders (src/gateway/tenant-placeholder.ts), and restore only
// of what the tenant is entitled to — a source's value when one of its groups is the source's, a detected
// value when the tenant's own request carried it. Costs nothing per secret: placeholders are computed for
// the values a request meets and kept only for that request.

import { FictaError } from '../errors.ts';
import { AMBIGUOUS, type GatewayIndex, type SecretSet } from '../redact/secret-set.ts';
import { PLACEHOLDER_ID_LENGTH } from '../redact/placeholder.ts';
import type { Tenant } from './tenant.ts';

/** Groups that entitle every tenant (a source with `groups = ["*"]`). */
export const EVERY_TENANT = '*';

/** Placeholder ids one request remembers having opened (a response repeating one is not decrypted again). */
const MAX_OPENED = 4096;
/**
 * Ids one request opens that turn out not to be the tenant's. Opening one costs ~6 µs (8 AES calls), so a
 * response made of distinct made-up placeholders would cost ~220 ms per MB; past this many (~6 ms) a
 * request's further unknown ids are left unchanged without being opened (fail closed: never restored).
 */
export const MAX_FOREIGN_OPENS = 1024;

/** What a placeholder id is to a tenant: a secret index it may have restored, another group's, or not its own. */
type Opened = { restore: number; denied: number };
const FOREIGN: Opened = { restore: -1, denied: -1 };

/** The set one request of `tenant` works on; the set must have been built for a gateway. */
export function tenantSet(set: SecretSet, tenant: Tenant): SecretSet {
  const g = set.gateway;
  if (g === undefined) throw new FictaError('FICTA_CONFIG_INVALID', 'gateway: the secret set was built without the gateway key; refusing to forward');
  const key = g.scheme.tenant(tenant.name);
  const groups = new Set(tenant.groups);
  const classOk = new Int8Array(g.classGroups.length).fill(-1);
  const entitled = (index: number): boolean => {
    const c = g.classOf[index] as number;
    let ok = classOk[c] as number;
    if (ok === -1) {
      const wanted = g.classGroups[c] as readonly string[];
      ok = wanted.some((w) => w === EVERY_TENANT || groups.has(w)) ? 1 : 0;
      classOk[c] = ok;
    }
    return ok === 1;
  };
  const store = set.detection?.store;
  const placeholders = new Map<number, Buffer>();
  const opened = new Map<string, Opened>();

  let foreign = 0;
  const open = (id: string): Opened => {
    let o = opened.get(id);
    if (o !== undefined) return o;
    if (foreign >= MAX_FOREIGN_OPENS) return FOREIGN;
    o = openId(g, key, id, entitled, store === undefined ? undefined : (fp) => store.secretForId(fp), (index) => store?.carriedBy(index, tenant.name) === true);
    if (o === FOREIGN) foreign++;
    if (opened.size < MAX_OPENED) opened.set(id, o);
    return o;
  };

  return {
    ...set,
    secretForId: (id) => open(id).restore,
    deniedForId: (id) => open(id).denied,
    placeholderFor(index) {
      let b = placeholders.get(index);
      if (b !== undefined) return b;
      let fp: string | undefined;
      if (index >= 0) fp = g.fingerprintOf(index);
      else {
        // The value was in this tenant's request: it may have it back.
        store?.grant(index, tenant.name);
        fp = store?.fingerprintOf(index);
      }
      if (fp === undefined) throw new Error('secret set: a detected value was evicted while its request was being redacted');
      b = Buffer.from(key.placeholder(fp), 'latin1');
      placeholders.set(index, b);
      return b;
    },
    detected(value, kind, unverified) {
      if (store === undefined) throw new Error('secret set: detection is off');
      // Carried by this tenant's request: stored under its fingerprint (a gateway store ignores the key).
      return store.intern(value, kind, NO_KEY, unverified, tenant.name);
    },
  };
}

const NO_KEY = new Uint8Array(32);

function openId(
  g: GatewayIndex,
  key: ReturnType<GatewayIndex['scheme']['tenant']>,
  id: string,
  entitled: (index: number) => boolean,
  detectedByFingerprint: ((fp: string) => number) | undefined,
  carried: (index: number) => boolean,
): Opened {
  if (id.length !== PLACEHOLDER_ID_LENGTH) return FOREIGN;
  const fp = key.open(id);
  if (fp === undefined) return FOREIGN;
  const index = g.lookup(fp);
  if (index === AMBIGUOUS) return FOREIGN;
  if (index >= 0) return entitled(index) ? { restore: index, denied: -1 } : { restore: -1, denied: index };
  const detected = detectedByFingerprint?.(fp) ?? -1;
  if (detected === -1) return FOREIGN;
  return carried(detected) ? { restore: detected, denied: -1 } : { restore: -1, denied: detected };
}
