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
  secrets: SecretReader;
  client: RecordReader;
  onEvent: OnEvent;
  tracker: WebhookTracker | undefined;
  /** Only `tracker` handles events (no `onEvent`): no confirm reads in the handler. */
  trackerOnly: boolean;
  store: EventStore;
  resolvers: Readonly<Partial<Record<StatusKind, ExternalIdResolver>>>;
  signatureHeader: string;
  scheme: SignatureScheme | undefined;
  maxBodyBytes: number;
  responseTimeoutMs: number;
  leaseMs: number;
  maxHandlingMs: number;
  owner: string | undefined;
  claimsInHand: ClaimsInHand;
  attempts: number;
  delayMs: number;
  logger: LogWrite;
  telemetry: TelemetryOptions;
}

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

const KNOWN: readonly string[] = [...BASE_OPTIONS, ...STATUS_KINDS.map((kind) => RECORD_KINDS[kind].resolver)];

// every option of the type is known, and nothing else: a new option, or a new kind's resolver, cannot be left out
type Known = (typeof BASE_OPTIONS)[number] | ResolverName<StatusKind>;
true satisfies SameKeys<Known, keyof WebhookHandlerOptions<unknown>>;

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

/** The construction warning when no event that needs a resolver can be confirmed: none given, no tracker finding records by key. */
export function neverConfirms(
  config: Pick<ResolvedOptions, 'resolvers' | 'tracker'>,
): { warning: 'never-confirms'; message: string } | undefined {
  if (KINDS_RESOLVED.length === 0 || KINDS_RESOLVED.some((kind) => config.resolvers[kind] !== undefined)) return undefined;
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

function webhookTracker(tracker: unknown): WebhookTracker | undefined {
  if (
    tracker !== undefined &&
    (tracker === null || typeof tracker !== 'object' || typeof (tracker as WebhookTracker).nudge !== 'function')
  ) {
    throw new TypeError('tracker must be a status tracker (an object with nudge), from createStatusTracker');
  }
  return tracker as WebhookTracker | undefined;
}

function transactional(store: EventStore): boolean {
  return typeof (store as { transact?: unknown }).transact === 'function';
}

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

const DEFAULT_LEASE_MS = 15_000;
const UNRENEWED_LEASE_MS = 60_000;

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
