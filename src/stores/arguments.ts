import { nonEmptyString, oneOf } from '../internal/arguments.js';
import { STATUS_KINDS, type StatusKind } from '../kinds.js';

export { wholeNumber } from '../internal/arguments.js';

export function checkKind(kind: unknown): asserts kind is StatusKind {
  oneOf('kind', kind, STATUS_KINDS);
}

export function checkExternalId(externalId: unknown): asserts externalId is string {
  nonEmptyString('externalId', externalId);
}

/** A key a read revealed (`rememberKey`, `findByKey`). */
export function checkFoundKey(key: unknown): asserts key is string {
  nonEmptyString('key', key);
}

export function checkOwner(owner: unknown): asserts owner is string {
  nonEmptyString('owner', owner);
}
