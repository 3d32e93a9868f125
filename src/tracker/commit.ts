import { sleep } from '../internal/abort.js';
import type { ResolvedTrackerOptions } from './options.js';
import { withLease } from './store-call.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { StatusTurn } from './types.js';

const STEP_RETRY_FIRST_MS = 50;
const STEP_RETRY_MAX_MS = 2_000;

/**
 * Retries a failing store step until `deadline`: while the lease holds no other process takes the
 * record, so a step that gets through spares it waiting out the lease. Stops when drain aborts the turn.
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
 * Records the handled status while the lease holds: that is what keeps `onChange` from running again. A
 * commit refused because this process adopted a later claim is made again under it, if nothing was handled meanwhile.
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
  }
}

function unchangedSinceClaim(handle: TurnHandle): boolean {
  const before = handle.record.handled;
  const now = handle.adopted?.handled;
  if (handle.adopted === undefined) return false;
  return before === undefined ? now === undefined : now?.status === before.status && now.at === before.at;
}
