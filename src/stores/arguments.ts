import { nonEmptyString, oneOf } from '../internal/arguments.js';
import { STATUS_KINDS, type StatusKind } from '../kinds.js';

// The tracker's and its stores' arguments, named once, checked by the SDK's one set of checkers
// (src/internal/arguments.ts).

export { wholeNumber } from '../internal/arguments.js';

/** A tracker's or store's `kind` argument: a kind of the table, else a `TypeError`. */
export function checkKind(kind: unknown): asserts kind is StatusKind {
  oneOf('kind', kind, STATUS_KINDS);
}

/** A record's `externalId` argument: a non-empty string, else a `TypeError`. */
export function checkExternalId(externalId: unknown): asserts externalId is string {
  nonEmptyString('externalId', externalId);
}

/** A key a read revealed (`rememberKey`, `findByKey`): a non-empty string, else a `TypeError`. */
export function checkFoundKey(key: unknown): asserts key is string {
  nonEmptyString('key', key);
}

/** A lease owner (the tracker's `owner`, `reclaim`'s argument): a non-empty string, else a `TypeError`. */
export function checkOwner(owner: unknown): asserts owner is string {
  nonEmptyString('owner', owner);
}
