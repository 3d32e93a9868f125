import type { ResolvedTrackerOptions } from './options.js';
import { withLease } from './store-call.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { StatusTurn } from './types.js';

/** First retry of a failed commit; the next ones double up to {@link COMMIT_RETRY_MAX_MS}, while the lease lasts. */
const COMMIT_RETRY_FIRST_MS = 50;
const COMMIT_RETRY_MAX_MS = 2_000;

/**
 * Records the handled status, retrying a store that fails (a Redis restart) while this process's
 * lease still holds (on its monotonic clock, as it stood when `onChange` resolved): `onChange` did its work, and recording it now is what
 * keeps it from running again. A commit refused because the lease was taken over by this same
 * process (the turn adopted a later claim) is made again under the adopted lease, when nothing was
 * handled meanwhile. Rejects once the lease has passed without a successful commit.
 */
export async function commitWhileLeased(
  config: ResolvedTrackerOptions,
  handle: TurnHandle,
  status: string | null,
  turn: () => StatusTurn,
): Promise<boolean> {
  let delay = COMMIT_RETRY_FIRST_MS;
  // the lease as it stood when onChange resolved: renewals meanwhile do not make a hung store's retries endless
  const deadline = handle.leaseEnds(config.leaseMs);
  for (let attempt = 0; ; attempt += 1) {
    try {
      const sent = handle.lease;
      const committed = await withLease(config, handle, 'commit', (lease) => config.store.commit(lease, status, turn()));
      if (committed || handle.lease === sent || !unchangedSinceClaim(handle) || attempt > 8) return committed;
      // adopted meanwhile: the lease is this process's again, commit under it
    } catch (error) {
      if (monotonic() + delay >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, COMMIT_RETRY_MAX_MS);
    }
  }
}

/** Whether the adopted claim shows the record as the turn's own claim did (nobody handled a change in between). */
function unchangedSinceClaim(handle: TurnHandle): boolean {
  const before = handle.record.handled;
  const now = handle.adopted?.handled;
  if (handle.adopted === undefined) return false;
  return before === undefined ? now === undefined : now?.status === before.status && now.at === before.at;
}
