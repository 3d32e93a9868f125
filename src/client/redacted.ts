/** What a redacted credential reads as. */
export const REDACTED = '[redacted]';

/** Below this length a value is not searched for in what the service sent back (it would blank ordinary words). */
export const MIN_REDACTED_LENGTH = 4;
