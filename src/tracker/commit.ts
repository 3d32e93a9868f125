import { sleep } from '../internal/abort.js';
import type { ResolvedTrackerOptions } from './options.js';
import { withLease } from './store-call.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { StatusTurn } from './types.js';

/** First retry of a failed store step; the next ones double up to {@link STEP_RETRY_MAX_MS}, while the lease lasts. */
const STEP_RETRY_FIRST_MS = 50;
const STEP_RETRY_MAX_MS = 2_000;

/**
 * Runs a store step that ends the turn, retrying a store that fails (a restart, a failover) until
 * `deadline` (this process's monotonic clock): while the lease holds no other process takes the
 * record, so a step that gets through within it ends the turn as planned instead of leaving the
 * record to wait for the whole lease. Stops retrying when drain aborts the turn (the lease lapses,
 * another process reads the record). Rejects with the last failure.
 */
export async function retryWhileLeased<T>(handle: TurnHandle, deadline: number, step: () => Promise<T>): Promise<T> {
  let delay = STEP_RETRY_FIRST_MS;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (monotonic() + delay >= deadline || handle.controller.signal.aborted) throw error;
      await sleep(delay, undefined);
      delay = Math.min(delay * 2, STEP_RETRY_MAX_MS);
    }
  }
}

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
  // the lease as it stood when onChange resolved: renewals meanwhile do not make a hung store's retries endless
  const deadline = handle.leaseEnds(config.leaseMs);
  for (let attempt = 0; ; attempt += 1) {
    const sent = handle.lease;
    const committed = await retryWhileLeased(handle, deadline, () =>
      withLease(config, handle, 'commit', (lease) => config.store.commit(lease, status, turn())),
    );
    if (committed || handle.lease === sent || !unchangedSinceClaim(handle) || attempt > 8) return committed;
    // adopted meanwhile: the lease is this process's again, commit under it
  }
}

/** Whether the adopted claim shows the record as the turn's own claim did (nobody handled a change in between). */
function unchangedSinceClaim(handle: TurnHandle): boolean {
  const before = handle.record.handled;
  const now = handle.adopted?.handled;
  if (handle.adopted === undefined) return false;
  return before === undefined ? now === undefined : now?.status === before.status && now.at === before.at;
}
