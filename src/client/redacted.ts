export const REDACTED = '[redacted]';

/** A shorter value would blank ordinary words. */
export const MIN_REDACTED_LENGTH = 4;
