// Apart, so src/logger.ts names these without importing the tracker's options.

export type { StatusKind } from '../kinds.js';

/**
 * How the tracker came to read the record that showed a change.
 * @inline
 */
export type StatusSource = 'poll' | 'webhook';

/**
 * Why a watch ended: a final status handled, `maxAgeMs` reached, or never found within `notFoundForMs`.
 * @inline
 */
export type WatchEndReason = 'final' | 'max-age' | 'not-found';
