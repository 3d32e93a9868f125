import { checkOptions, timerMs } from '../internal/arguments.js';
import { noticeMemoryDefault } from '../internal/memory-notice.js';
import { defaultStoreRefusal } from '../stores/default-store.js';
import { typeName } from '../internal/type-name.js';
import { Telemetry } from '../telemetry/telemetry.js';
import type { WebhookEvent } from '../webhooks/event.js';
import { checkExternalId, checkKind } from '../stores/arguments.js';
import { ClaimLoop } from './claim-loop.js';
import { countingFailures, trackerHealth } from './health.js';
import { projectEvent } from '../stores/event-projection.js';
import type { DrainOptions, DrainReport } from '../drain.js';
import { resolveTrackerOptions, type ResolvedTrackerOptions } from './options.js';
import { perKind } from '../kinds.js';
import type {
  KindWatches,
  StatusKind,
  StatusTracker,
  StatusTrackerOptions,
  TrackerHealth,
  TrackerHealthOptions,
  WatchArguments,
} from './types.js';

/**
 * Creates a status tracker: each status change of the watched records goes to `onChange` once,
 * whether a poll or a provider event (the webhook handler's `tracker` option) saw it first.
 *
 * @example
 * const tracker = createStatusTracker({ client, store: new RedisStatusStore({ client: redis }), onChange: fulfil });
 * tracker.start();
 * await tracker.watchOrder('order-42'); // when the checkout opens
 */
export function createStatusTracker<Transaction = undefined>(options: StatusTrackerOptions<Transaction>): StatusTracker<Transaction> {
  const resolved = resolveTrackerOptions(options);
  const telemetry = new Telemetry(resolved.telemetry);
  const config = { ...resolved, logger: countingFailures(resolved.logger, telemetry) };
  const { store } = config;
  const loop = new ClaimLoop(config, telemetry);
  const watchKind = async (kind: StatusKind, externalId: string, watchOptions: unknown): Promise<void> => {
    await watch(config, kind, externalId, watchOptions);
    loop.wake();
  };
  const watchOwn =
    (kind: StatusKind) =>
    (externalId: string, ...watchOptions: WatchArguments<Transaction>): Promise<void> =>
      watchKind(kind, externalId, watchOptions[0]);
  return {
    watch: (kind: StatusKind, externalId: string, ...watchOptions: WatchArguments<Transaction>) =>
      watchKind(kind, externalId, watchOptions[0]),
    ...(perKind('watch', watchOwn) as KindWatches<Transaction>),

    async unwatch(kind: StatusKind, externalId: string): Promise<void> {
      checkKind(kind);
      checkExternalId(externalId);
      await store.unwatch(kind, externalId);
    },

    async nudge(kind: StatusKind, externalId: string, nudgeOptions?: { event?: WebhookEvent | undefined }): Promise<void> {
      await nudge(config, kind, externalId, nudgeOptions);
      loop.wake();
    },

    async recordFor(event: WebhookEvent): Promise<{ kind: StatusKind; externalId: string } | undefined> {
      if (event === null || typeof event !== 'object' || typeof event.type !== 'string') {
        throw new TypeError(`event must be a webhook event (an object with a string type), got ${typeName(event)}`);
      }
      return config.foundKeys.recordFor(event);
    },

    start(): void {
      const refused = defaultStoreRefusal('tracker', options);
      if (refused !== undefined) throw refused;
      noticeMemoryDefault('tracker', options);
      loop.start();
    },

    async drain(drainOptions?: DrainOptions): Promise<DrainReport> {
      return loop.drain(drainTimeoutMs(drainOptions));
    },

    async health(healthOptions?: TrackerHealthOptions): Promise<TrackerHealth> {
      checkOptions('health', healthOptions, ['store'], true);
      const askStore = healthOptions?.store ?? true;
      if (typeof askStore !== 'boolean') throw new TypeError(`health: store must be true or false, got ${typeName(askStore)}`);
      return trackerHealth(config, loop, askStore);
    },
  };
}

async function watch(config: ResolvedTrackerOptions, kind: StatusKind, externalId: string, watchOptions: unknown): Promise<void> {
  checkKind(kind);
  checkExternalId(externalId);
  if (watchOptions !== undefined && (watchOptions === null || typeof watchOptions !== 'object')) {
    throw new TypeError(`watch options must be an object { transaction? }, got ${typeName(watchOptions)}`);
  }
  const transaction = (watchOptions as { transaction?: unknown } | undefined)?.transaction;
  if (transaction === undefined) await config.store.watch(kind, externalId);
  else if (config.transactional === undefined) {
    throw new TypeError('a watch can join a transaction only with a transactional store (PostgresStatusStore with transactional: true)');
  } else await config.transactional.watch(kind, externalId, { transaction });
}

async function nudge(config: ResolvedTrackerOptions, kind: StatusKind, externalId: string, nudgeOptions: unknown): Promise<void> {
  checkKind(kind);
  checkExternalId(externalId);
  if (nudgeOptions !== undefined && (nudgeOptions === null || typeof nudgeOptions !== 'object')) {
    throw new TypeError(`nudge options must be an object { event? }, got ${typeName(nudgeOptions)}`);
  }
  const event = (nudgeOptions as { event?: WebhookEvent | undefined } | undefined)?.event;
  await config.store.nudge(kind, externalId, event === undefined ? {} : { event: projectEvent(event) });
  if (event !== undefined) config.events.noted();
}

function drainTimeoutMs(drainOptions: unknown): number {
  if (drainOptions !== undefined && (drainOptions === null || typeof drainOptions !== 'object')) {
    throw new TypeError(`drain options must be an object { timeoutMs? }, got ${typeName(drainOptions)}`);
  }
  return timerMs('drain timeoutMs', (drainOptions as DrainOptions | undefined)?.timeoutMs, 10_000);
}
