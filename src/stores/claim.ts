import { typeName } from '../internal/type-name.js';
import type { ClaimResult } from './event-store.js';

/**
 * What a store's `claim` resolved to, checked against the `EventStore` contract: the same
 * value, typed, or a `TypeError` that says what the store answered instead. A lease is required:
 * a plain `"claimed"` (the pre-1.0 answer) and a claim without its `lease` are refused.
 */
export function checkClaim(claim: unknown): ClaimResult {
  if (claim === 'in-flight' || claim === 'done') return claim;
  if (claim === 'claimed') {
    throw new TypeError(
      'store.claim resolved to "claimed" without a lease: a claim must resolve to { status: "claimed", lease }, ' +
        'whose lease the handler passes back to complete and release',
    );
  }
  if (claim !== null && typeof claim === 'object' && (claim as { status?: unknown }).status === 'claimed') {
    const { lease } = claim as { lease?: unknown };
    if (lease !== undefined && lease !== null) return { status: 'claimed', lease };
    throw new TypeError(`store.claim resolved to { status: "claimed" } with lease ${typeName(lease)}: a claim must carry its lease`);
  }
  throw new TypeError(`store.claim must resolve to { status: "claimed", lease }, "in-flight" or "done", got ${typeName(claim)}`);
}
