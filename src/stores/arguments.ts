import { nonEmptyString, oneOf } from '../internal/arguments.js';
import type { StatusKind } from './status-store.js';

// The tracker's and its stores' arguments, named once, checked by the SDK's one set of checkers
// (src/internal/arguments.ts).

export { wholeNumber } from '../internal/arguments.js';

/** The kinds of record a tracker watches. */
const KINDS: readonly StatusKind[] = ['order', 'withdrawal'];

/** A tracker's or store's `kind` argument: `'order'` or `'withdrawal'`, else a `TypeError`. */
export function checkKind(kind: unknown): asserts kind is StatusKind {
  oneOf('kind', kind, KINDS);
}

/** A record's `externalId` argument: a non-empty string, else a `TypeError`. */
export function checkExternalId(externalId: unknown): asserts externalId is string {
  nonEmptyString('externalId', externalId);
}

/** A lease owner (the tracker's `owner`, `reclaim`'s argument): a non-empty string, else a `TypeError`. */
export function checkOwner(owner: unknown): asserts owner is string {
  nonEmptyString('owner', owner);
}
