import { byteCount, checkOptions, functionOption, MAX_TIMER_MS, signatureHeaderName, timerMs } from '../../internal/arguments.js';
import { quote } from '../../internal/quote.js';
import { typeName } from '../../internal/type-name.js';
import type { EventStore } from '../../stores/event-store.js';
import { MemoryEventStore } from '../../stores/memory-event-store.js';
import type { SignatureScheme } from '../signature/signature.js';
import { secretReader, type SecretReader } from './secret-source.js';
import { inheritedTelemetry, type TelemetryOptions } from '../../telemetry/options.js';
import { logWriter, type LogWrite } from './logger.js';
import type { ExternalIdResolver, OnEvent, WebhookHandlerOptions, WebhookTracker } from './options.js';
import type { StatusReader } from '../../client/client.js';
import { checkOwner } from '../../stores/arguments.js';
import { ClaimsInHand } from './claims-in-hand.js';

/** The options with every default applied, checked once. */
export interface ResolvedOptions {
  /** The signing secrets of one delivery (the `secret` option, read per delivery when it is a function). */
  secrets: SecretReader;
  client: StatusReader;
  onEvent: OnEvent;
  /** The tracker to nudge per event, if any. */
  tracker: WebhookTracker | undefined;
  /** `true` when only `tracker` handles events (no `onEvent`): no confirm reads in the handler. */
  trackerOnly: boolean;
  store: EventStore;
  resolveOrderExternalId: ExternalIdResolver | undefined;
  resolveWithdrawalExternalId: ExternalIdResolver | undefined;
  signatureHeader: string;
  scheme: SignatureScheme | undefined;
  maxBodyBytes: number;
  responseTimeoutMs: number;
  /** A claim's lease; renewed every third of it while in hand when the store can renew. */
  leaseMs: number;
  /** The `owner` option, when given: claims are made under it, and its own live claims taken back. */
  owner: string | undefined;
  /** The events this handler holds a claim on now. */
  claimsInHand: ClaimsInHand;
  attempts: number;
  delayMs: number;
  /** The `logger` option as one writer (never throws). */
  logger: LogWrite;
  /** The providers: the options', else the client's, else the global ones (looked up per delivery). */
  telemetry: TelemetryOptions;
}

const KNOWN = [
  'secret',
  'client',
  'onEvent',
  'tracker',
  'store',
  'resolveOrderExternalId',
  'resolveWithdrawalExternalId',
  'signatureHeader',
  'scheme',
  'maxBodyBytes',
  'responseTimeoutMs',
  'leaseMs',
  'owner',
  'confirm',
  'logger',
  'tracerProvider',
  'meterProvider',
  'openTelemetryApi',
] as const satisfies readonly (keyof WebhookHandlerOptions<unknown>)[];

/** Checks every option and applies the defaults; a wrong one is a `TypeError` naming it. */
export function resolveOptions<Transaction>(options: WebhookHandlerOptions<Transaction>): ResolvedOptions {
  checkOptions('createWebhookHandler', options, KNOWN);
  const client = statusReader(options.client);
  const tracker = webhookTracker(options.tracker);
  functionOption('onEvent', options.onEvent, tracker === undefined);
  functionOption('resolveOrderExternalId', options.resolveOrderExternalId);
  functionOption('resolveWithdrawalExternalId', options.resolveWithdrawalExternalId);
  functionOption('scheme', options.scheme);
  const store = eventStore(options.store ?? new MemoryEventStore());
  const signatureHeader = signatureHeaderName(options.signatureHeader);
  const maxBodyBytes = byteCount('maxBodyBytes', options.maxBodyBytes, 1_048_576);
  const { responseTimeoutMs, leaseMs } = deadlines(options, store);
  if (options.owner !== undefined) checkOwner(options.owner);
  const { attempts, delayMs } = confirmOptions(options.confirm ?? {});
  const logger = logWriter(options.logger);
  return {
    secrets: secretReader(options.secret),
    client,
    // the handler passes `transaction` exactly when the store is transactional, as Transaction says
    onEvent: (options.onEvent ?? (() => undefined)) as OnEvent,
    tracker,
    trackerOnly: tracker !== undefined && options.onEvent === undefined,
    store,
    resolveOrderExternalId: options.resolveOrderExternalId,
    resolveWithdrawalExternalId: options.resolveWithdrawalExternalId,
    signatureHeader,
    scheme: options.scheme,
    maxBodyBytes,
    responseTimeoutMs,
    leaseMs,
    owner: options.owner,
    claimsInHand: new ClaimsInHand(),
    attempts,
    delayMs,
    logger,
    telemetry: inheritedTelemetry(options, client),
  };
}

/** The `client` option: anything that reads orders and withdrawals by external id, as a CheckoutClient does. */
function statusReader(client: unknown): StatusReader {
  if (
    client === null ||
    typeof client !== 'object' ||
    typeof (client as StatusReader).getOrderByExternalId !== 'function' ||
    typeof (client as StatusReader).getWithdrawalByExternalId !== 'function'
  ) {
    throw new TypeError('client must be a CheckoutClient (an object with getOrderByExternalId and getWithdrawalByExternalId)');
  }
  return client as StatusReader;
}

/** The `tracker` option, if given: an object with `nudge` (a status tracker). */
function webhookTracker(tracker: unknown): WebhookTracker | undefined {
  if (
    tracker !== undefined &&
    (tracker === null || typeof tracker !== 'object' || typeof (tracker as WebhookTracker).nudge !== 'function')
  ) {
    throw new TypeError('tracker must be a status tracker (an object with nudge), from createStatusTracker');
  }
  return tracker as WebhookTracker | undefined;
}

/** The `store` option (or its default): an object with the EventStore methods. */
function eventStore(store: EventStore): EventStore {
  if (
    store === null ||
    typeof store !== 'object' ||
    typeof store.claim !== 'function' ||
    typeof store.complete !== 'function' ||
    typeof store.release !== 'function'
  ) {
    throw new TypeError('store must be an EventStore (an object with claim, complete and release methods)');
  }
  return store;
}

/** Renewed every third of it, a claim survives two failed renewals in a row, and a killed worker's claims free within it. */
const DEFAULT_LEASE_MS = 15_000;
/** The default lease of a store without `renew` (and a transaction's bound, which nothing renews): the work must end within it. */
const UNRENEWED_LEASE_MS = 60_000;

/**
 * `responseTimeoutMs` and `leaseMs`: a claim must outlive the delivery that made it. The default
 * lease is short where the store renews it, and never shorter than `responseTimeoutMs`.
 */
function deadlines(
  options: { responseTimeoutMs?: unknown; leaseMs?: unknown },
  store: EventStore,
): { responseTimeoutMs: number; leaseMs: number } {
  const responseTimeoutMs = timerMs('responseTimeoutMs', options.responseTimeoutMs, 8_000);
  // a transactional store's claim is its transaction, which nothing renews
  const renews = typeof store.renew === 'function' && typeof (store as { transact?: unknown }).transact !== 'function';
  const leaseMs = timerMs('leaseMs', options.leaseMs, renews ? Math.max(DEFAULT_LEASE_MS, responseTimeoutMs) : UNRENEWED_LEASE_MS);
  if (leaseMs < responseTimeoutMs) {
    throw new TypeError(
      `leaseMs (${leaseMs}) must be at least responseTimeoutMs (${responseTimeoutMs}): a claim must outlive the delivery that made it`,
    );
  }
  return { responseTimeoutMs, leaseMs };
}

/** The `confirm` option: how many status reads (`attempts`, 3) and how far apart (`delayMs`, 500). */
function confirmOptions(confirm: unknown): { attempts: number; delayMs: number } {
  if (confirm === null || typeof confirm !== 'object') {
    throw new TypeError(`confirm must be an object { attempts?, delayMs? }, got ${typeName(confirm)}`);
  }
  checkOptions('confirm', confirm, ['attempts', 'delayMs']);
  const given = confirm as { attempts?: unknown; delayMs?: unknown };
  const attempts = given.attempts ?? 3;
  const delayMs = given.delayMs ?? 500;
  if (typeof attempts !== 'number' || !Number.isSafeInteger(attempts) || attempts < 1 || attempts > 100) {
    throw new TypeError(`confirm.attempts must be a whole number from 1 to 100, got ${quote(attempts)}`);
  }
  if (typeof delayMs !== 'number' || !(delayMs >= 0) || !Number.isFinite(delayMs)) {
    throw new TypeError(`confirm.delayMs must be a number of milliseconds of at least 0, got ${quote(delayMs)}`);
  }
  if (delayMs > MAX_TIMER_MS) {
    throw new TypeError(`confirm.delayMs must be at most ${MAX_TIMER_MS} milliseconds (the longest a timer can wait), got ${delayMs}`);
  }
  return { attempts, delayMs };
}
