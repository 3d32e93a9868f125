import {
  byteCount,
  checkOptions,
  functionOption,
  MAX_TIMER_MS,
  signatureHeaderName,
  timerMs,
  type SameKeys,
} from '../../internal/arguments.js';
import { quote } from '../../internal/quote.js';
import { typeName } from '../../internal/type-name.js';
import type { EventStore } from '../../stores/event-store.js';
import { MemoryEventStore } from '../../stores/memory-event-store.js';
import type { SignatureScheme } from '../signature/signature.js';
import { secretReader, type SecretReader } from './secret-source.js';
import { inheritedTelemetry, type TelemetryOptions } from '../../telemetry/options.js';
import { logWriter, type LogWrite } from './logger.js';
import type { ExternalIdResolver, ExternalIdResolvers, OnEvent, WebhookHandlerOptions, WebhookTracker } from './options.js';
import { eventPatterns, KINDS_RESOLVED } from '../../event-types.js';
import { RECORD_KINDS, STATUS_KINDS, statusReader, type RecordReader, type ResolverName, type StatusKind } from '../../kinds.js';
import { checkOwner } from '../../stores/arguments.js';
import { ClaimsInHand } from './claims-in-hand.js';
import { maxHandlingMs } from '../../handling.js';

/** The options with every default applied, checked once. */
export interface ResolvedOptions {
  /** The signing secrets of one delivery (the `secret` option, read per delivery when it is a function). */
  secrets: SecretReader;
  client: RecordReader;
  onEvent: OnEvent;
  /** The tracker to nudge per event, if any. */
  tracker: WebhookTracker | undefined;
  /** `true` when only `tracker` handles events (no `onEvent`): no confirm reads in the handler. */
  trackerOnly: boolean;
  store: EventStore;
  /** The partner's resolver of each kind that has one (`resolveExternalId`, or the kind's own option). */
  resolvers: Readonly<Partial<Record<StatusKind, ExternalIdResolver>>>;
  signatureHeader: string;
  scheme: SignatureScheme | undefined;
  maxBodyBytes: number;
  responseTimeoutMs: number;
  /** A claim's lease; renewed every third of it while in hand when the store can renew. */
  leaseMs: number;
  /** The longest `onEvent` keeps its claim (`maxHandlingMs`). */
  maxHandlingMs: number;
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

/** The options every handler takes, whatever the kinds. */
const BASE_OPTIONS = [
  'secret',
  'client',
  'onEvent',
  'tracker',
  'store',
  'resolveExternalId',
  'signatureHeader',
  'scheme',
  'maxBodyBytes',
  'responseTimeoutMs',
  'leaseMs',
  'maxHandlingMs',
  'owner',
  'confirm',
  'logger',
  'tracerProvider',
  'meterProvider',
  'openTelemetryApi',
] as const;

/** Every option: the base ones and each kind's resolver option, from the kinds table. */
const KNOWN: readonly string[] = [...BASE_OPTIONS, ...STATUS_KINDS.map((kind) => RECORD_KINDS[kind].resolver)];

// every option of the type is known, and nothing else: a new option, or a new kind's resolver, cannot be left out
type Known = (typeof BASE_OPTIONS)[number] | ResolverName<StatusKind>;
true satisfies SameKeys<Known, keyof WebhookHandlerOptions<unknown>>;

/** Checks every option and applies the defaults; a wrong one is a `TypeError` naming it. */
export function resolveOptions<Transaction>(options: WebhookHandlerOptions<Transaction>): ResolvedOptions {
  checkOptions('createWebhookHandler', options, KNOWN);
  const client = statusReader(options.client);
  const tracker = webhookTracker(options.tracker);
  functionOption('onEvent', options.onEvent, tracker === undefined);
  const resolvers = kindResolvers(options);
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
    resolvers,
    signatureHeader,
    scheme: options.scheme,
    maxBodyBytes,
    responseTimeoutMs,
    leaseMs,
    // a transactional store's claim is its transaction, which leaseMs bounds: the two end together
    maxHandlingMs: maxHandlingMs(options.maxHandlingMs, transactional(store) ? leaseMs : undefined),
    owner: options.owner,
    claimsInHand: new ClaimsInHand(),
    attempts,
    delayMs,
    logger,
    telemetry: inheritedTelemetry(options, client),
  };
}

/**
 * The resolver of each kind: its entry of `resolveExternalId`, else its own option
 * (`resolveOrderExternalId`); a kind given both ways, an unknown kind or a non-function is a `TypeError`.
 */
function kindResolvers(
  options: Pick<WebhookHandlerOptions, 'resolveExternalId' | ResolverName<StatusKind>>,
): Partial<Record<StatusKind, ExternalIdResolver>> {
  const byKind = checkOptions('resolveExternalId', options.resolveExternalId, STATUS_KINDS, true) as ExternalIdResolvers;
  const resolvers: Partial<Record<StatusKind, ExternalIdResolver>> = {};
  for (const kind of STATUS_KINDS) {
    const name = RECORD_KINDS[kind].resolver;
    const own = options[name];
    const keyed = byKind[kind];
    functionOption(name, own);
    functionOption(`resolveExternalId.${kind}`, keyed);
    if (own !== undefined && keyed !== undefined) {
      throw new TypeError(`give the ${kind} resolver once: resolveExternalId.${kind} or ${name}, not both`);
    }
    const resolver = keyed ?? own;
    if (resolver !== undefined) resolvers[kind] = resolver;
  }
  return resolvers;
}

/**
 * The warning given once at construction when no event that needs a resolver can be confirmed: no
 * such kind has one and no tracker finds records by their keys. Lists each such kind's resolver
 * and the events it serves (a kind whose events carry their record's id needs none).
 */
export function neverConfirms(
  config: Pick<ResolvedOptions, 'resolvers' | 'tracker'>,
): { warning: 'never-confirms'; message: string } | undefined {
  if (KINDS_RESOLVED.length === 0 || KINDS_RESOLVED.some((kind) => config.resolvers[kind] !== undefined)) return undefined;
  // a tracker that finds records by a read's key (recordFor) reads otc.trade.* events' orders without a resolver
  if (config.tracker?.recordFor !== undefined) return undefined;
  const events = (kind: StatusKind) => eventPatterns(kind).join(', ');
  return {
    warning: 'never-confirms',
    message:
      `createWebhookHandler has no resolver (${KINDS_RESOLVED.map((kind) => RECORD_KINDS[kind].resolver).join(', ')}), so no record ` +
      'is ever read for their events and onEvent always gets confirmed: false. Pass resolveExternalId: ' +
      `{ ${KINDS_RESOLVED.map((kind) => `${kind} (${events(kind)})`).join(', ')} }; logger: false silences this warning.`,
  };
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

/** Whether `store` runs each delivery in its own transaction (`transact`). */
function transactional(store: EventStore): boolean {
  return typeof (store as { transact?: unknown }).transact === 'function';
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
  const renews = typeof store.renew === 'function' && !transactional(store);
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
