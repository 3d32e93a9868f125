// The tracker's small vocabulary, in a file of its own so the SDK's log entries (src/logger.ts)
// can name it without importing the tracker's options.

export type { StatusKind } from '../kinds.js';

/**
 * How the tracker came to read the record that showed a change.
 *
 * @inline
 */
export type StatusSource = 'poll' | 'webhook';

/**
 * Why a watch ended, as `onWatchEnd` and the logger report it: `'final'` (a final status was
 * handled), `'max-age'` (watched `maxAgeMs` without a final status), `'not-found'` (never found
 * within `notFoundForMs`).
 *
 * @inline
 */
export type WatchEndReason = 'final' | 'max-age' | 'not-found';
