import { typeName } from '../internal/type-name.js';
import type { ClaimedLease } from './event-store.js';

/** A claim as the handler carries it: a plain `"claimed"` becomes `{ status: 'claimed', lease: undefined }`. */
export type CheckedClaim = ClaimedLease | 'in-flight' | 'done';

export function checkClaim(claim: unknown): CheckedClaim {
  if (claim === 'in-flight' || claim === 'done') return claim;
  if (claim === 'claimed') return { status: 'claimed', lease: undefined };
  if (claim !== null && typeof claim === 'object' && (claim as { status?: unknown }).status === 'claimed') {
    const { lease } = claim as { lease?: unknown };
    if (lease !== null) return { status: 'claimed', lease };
    throw new TypeError(
      'store.claim resolved to { status: "claimed" } with lease null: give the lease, or leave it out for a claim without one',
    );
  }
  throw new TypeError(`store.claim must resolve to "claimed", { status: "claimed", lease }, "in-flight" or "done", got ${typeName(claim)}`);
}
