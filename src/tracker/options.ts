import { checkOptions, functionOption, timerMs } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import { inheritedTelemetry, type TelemetryOptions } from '../telemetry/options.js';
import { wholeNumber } from '../stores/arguments.js';
import { trackerLog, type TrackerLog } from './logger.js';
import { statusReader, type RecordReader } from '../kinds.js';
import { MemoryStatusStore } from '../stores/memory-status-store.js';
import { resolveSchedule, type Schedule } from './schedule.js';
import { defaultIsFinal } from './status.js';
import { FoundKeys } from './found-keys.js';
import { EventFlow } from './event-flow.js';
import { maxHandlingMs } from '../handling.js';
import type { StatusChange, StatusStore, StatusTrackerOptions, TransactionalStatusStore, WatchEndReason, StatusKind } from './types.js';

/** The tracker's options with every default applied, checked once. */
export interface ResolvedTrackerOptions {
  client: RecordReader;
  store: StatusStore;
  transactional: TransactionalStatusStore<unknown> | undefined;
  onChange: (change: StatusChange & { transaction?: unknown }) => void | Promise<void>;
  isFinal: (change: StatusChange) => boolean;
  schedule: Schedule;
  leaseMs: number;
  maxConcurrentReads: number;
  claimIntervalMs: number;
  readTimeoutMs: number;
  maxHandlingMs: number;
  owner: string;
  ownerGiven: boolean;
  storeTimeoutMs: number;
  logger: TrackerLog;
  onWatchEnd:
    ((end: { kind: StatusKind; externalId: string; reason: WatchEndReason; status: string | null | undefined }) => void) | undefined;
  telemetry: TelemetryOptions;
  foundKeys: FoundKeys;
  events: EventFlow;
}

const KNOWN = [
  'client',
  'store',
  'onChange',
  'isFinal',
  'schedule',
  'leaseMs',
  'maxConcurrentReads',
  'claimIntervalMs',
  'readTimeoutMs',
  'maxHandlingMs',
  'owner',
  'logger',
  'onWatchEnd',
  'tracerProvider',
  'meterProvider',
  'openTelemetryApi',
] as const satisfies readonly (keyof StatusTrackerOptions<unknown>)[];

const STORE_METHODS = ['watch', 'unwatch', 'nudge', 'claimDue', 'extend', 'commit', 'reschedule', 'release', 'reclaim', 'get'] as const;

export const DEFAULT_LEASE_MS = 15_000;

export function resolveTrackerOptions<Transaction>(options: StatusTrackerOptions<Transaction>): ResolvedTrackerOptions {
  checkOptions('createStatusTracker', options, KNOWN);
  const client = statusReader(options.client);
  functionOption('onChange', options.onChange, true);
  functionOption('isFinal', options.isFinal);
  functionOption('onWatchEnd', options.onWatchEnd);
  const store = (options.store ?? new MemoryStatusStore()) as unknown;
  if (
    store === null ||
    typeof store !== 'object' ||
    !STORE_METHODS.every((method) => typeof (store as Record<string, unknown>)[method] === 'function')
  ) {
    throw new TypeError(`store must be a StatusStore (an object with ${STORE_METHODS.join(', ')})`);
  }
  const transact = (store as Partial<TransactionalStatusStore<unknown>>).transact;
  const leaseMs = timerMs('leaseMs', options.leaseMs, DEFAULT_LEASE_MS);
  if (leaseMs < 1_000) throw new TypeError(`leaseMs must be at least 1000 milliseconds, got ${leaseMs}`);
  const ownerGiven = options.owner !== undefined;
  const owner = options.owner ?? `tracker-${globalThis.crypto.randomUUID()}`;
  if (typeof owner !== 'string' || owner === '') throw new TypeError(`owner must be a non-empty string, got ${typeName(owner)}`);
  const schedule = resolveSchedule(options.schedule);
  return {
    client,
    store: store as StatusStore,
    transactional: typeof transact === 'function' ? (store as TransactionalStatusStore<unknown>) : undefined,
    // the tracker passes `transaction` exactly when the store is transactional, as Transaction says
    onChange: options.onChange as ResolvedTrackerOptions['onChange'],
    isFinal: options.isFinal ?? defaultIsFinal,
    schedule,
    leaseMs,
    maxConcurrentReads: wholeNumber('maxConcurrentReads', options.maxConcurrentReads, 8),
    claimIntervalMs: timerMs('claimIntervalMs', options.claimIntervalMs, 250),
    // a read longer than the lease would be wasted: another process takes the record meanwhile
    readTimeoutMs: timerMs('readTimeoutMs', options.readTimeoutMs, Math.min(15_000, leaseMs / 2)),
    maxHandlingMs: maxHandlingMs(options.maxHandlingMs),
    owner,
    ownerGiven,
    storeTimeoutMs: Math.ceil(leaseMs / 3),
    logger: trackerLog(options.logger),
    onWatchEnd: options.onWatchEnd,
    telemetry: inheritedTelemetry(options, client),
    foundKeys: new FoundKeys(store as StatusStore, Math.ceil(leaseMs / 3)),
    events: new EventFlow(store as StatusStore, schedule.webhookSilenceMs, Math.ceil(leaseMs / 3), schedule.webhooksFromStart),
  };
}
