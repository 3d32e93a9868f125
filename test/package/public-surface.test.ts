import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The public surface, pinned: every name each entry point exports, runtime values and types
// apart. A new export (or a dropped one) fails here, so it is a deliberate change: add it below,
// with its TSDoc, and keep the total within the 1.0 budget (what partners use and what store
// implementers need, nothing else).
const SURFACE = {
  'checkout-partner-sdk': {
    file: 'src/index.ts',
    values: [
      'ApiError',
      'AuthenticationError',
      'CheckoutClient',
      'CheckoutError',
      'ConnectionError',
      'MeSchema',
      'NotFoundError',
      'OrderSchema',
      'PermissionDeniedError',
      'QueueFullError',
      'RateLimitError',
      'ResponseTooLargeError',
      'ResponseValidationError',
      'ServerError',
      'TimeoutError',
      'TokenResponseSchema',
      'WaitTimeoutError',
      'WithdrawalSchema',
    ],
    types: [
      'CheckoutClientOptions',
      'DrainReport',
      'LogEntry',
      'LogError',
      'Logger',
      'Me',
      'Order',
      'RateLimitOptions',
      'RawRequestOptions',
      'RequestOptions',
      'ResponseInfo',
      'RetryBudgetOptions',
      'StatusReader',
      'TelemetryOptions',
      'TokenResponse',
      'ValidationIssue',
      'WaitOptions',
      'WithResponse',
      'Withdrawal',
    ],
  },
  'checkout-partner-sdk/webhooks': {
    file: 'src/webhooks/index.ts',
    values: [
      'MemoryEventStore',
      'WebhookPayloadError',
      'createWebhookHandler',
      'isEventType',
      'parseEvent',
      'signPayload',
      'tagValue',
      'verifySignature',
    ],
    types: [
      'EventOfType',
      'EventStore',
      'KnownWebhookEvent',
      'SignatureScheme',
      'TransactionalWebhookContext',
      'WebhookContext',
      'WebhookEvent',
      'WebhookHandler',
      'WebhookHandlerHealth',
      'WebhookHandlerOptions',
      'WebhookSecret',
      'WebhookSecretSource',
    ],
  },
  'checkout-partner-sdk/redis': {
    file: 'src/redis/index.ts',
    values: ['RedisEventStore', 'RedisStatusStore', 'RedisStoreError', 'RedisTokenStore'],
    types: ['RedisClientLike', 'RedisEventStoreOptions', 'RedisStatusStoreOptions', 'RedisTokenStoreOptions'],
  },
  'checkout-partner-sdk/postgres': {
    file: 'src/postgres/index.ts',
    values: ['PostgresEventStore', 'PostgresStatusStore', 'PostgresStoreError', 'PostgresTransactionError'],
    types: ['PostgresEventStoreOptions', 'PostgresPoolLike', 'PostgresStatusStoreOptions', 'PostgresTransaction'],
  },
  'checkout-partner-sdk/tracker': {
    file: 'src/tracker/index.ts',
    values: ['MAX_TRACKED_EVENT_BYTES', 'MemoryStatusStore', 'StatusStoreFullError', 'StatusStoreTimeoutError', 'createStatusTracker'],
    types: [
      'OrderStatusChange',
      'StatusChange',
      'StatusScheduleOptions',
      'StatusStore',
      'StatusTracker',
      'StatusTrackerOptions',
      'TrackerHealth',
      'TransactionalStatusChange',
      'WithdrawalStatusChange',
    ],
  },
  // for those who write a store: the contracts and their plumbing, out of the partner's way
  'checkout-partner-sdk/stores': {
    file: 'src/stores/index.ts',
    values: ['LeaseLostError', 'NUDGE_PRIORITY_MS'],
    types: [
      'ClaimDueRequest',
      'ClaimResult',
      'ClaimedLease',
      'ClaimedStatusRecord',
      'EventStore',
      'StatusKind',
      'StatusLease',
      'StatusNext',
      'StatusRecordState',
      'StatusStore',
      'StatusTurn',
      'StoredToken',
      'TokenStore',
      'TransactResult',
      'TransactionalEventStore',
      'TransactionalStatusStore',
    ],
  },
  'checkout-partner-sdk/testing': {
    file: 'src/testing/index.ts',
    values: [
      'EventDeliveryError',
      'FakeCheckout',
      'MissingPeerDependencyError',
      'createEvent',
      'createFakeCheckout',
      'createProviderSimulator',
      'defineFakeRoute',
      'deliverEvent',
      'playTimeline',
      'signEvent',
    ],
    types: [
      'DeliverEventOptions',
      'DeliveryReport',
      'FakeCheckoutOptions',
      'FakePartner',
      'FakeRoute',
      'FakeRouteRequest',
      'FakeRouteResponse',
      'FakeServer',
      'ProviderSimulator',
      'ProviderSimulatorOptions',
      'SignedEvent',
      'TimelineStep',
    ],
  },
  'checkout-partner-sdk/testing/msw': {
    file: 'src/testing/msw.ts',
    values: ['fakeCheckoutHandlers'],
    types: [],
  },
} as const satisfies Record<string, { file: string; values: readonly string[]; types: readonly string[] }>;

/** At most this many names over all entries (a name exported by two entries counts twice). */
const BUDGET = 130;

type Specifier = keyof typeof SURFACE;
const specifiers = Object.keys(SURFACE) as Specifier[];

/** Each entry file's exports, as the TypeScript compiler sees them: runtime values and types apart. */
function compiledExports(files: readonly string[]): Map<string, { values: string[]; types: string[] }> {
  // no lib, no @types: resolving the entries' own re-exports is all it takes, and it stays fast
  const program = ts.createProgram([...files], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    noLib: true,
    types: [],
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, { values: string[]; types: string[] }>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${file}: not a module the compiler can read`);
    const values: string[] = [];
    const types: string[] = [];
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name);
    }
    out.set(file, { values: values.sort(), types: types.sort() });
  }
  return out;
}

const sorted = (names: readonly string[]): string[] => [...names].sort();

describe('the public surface', () => {
  it('pins an entry for every package.json export, and only those', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; exports: Record<string, unknown> };
    const exported = Object.keys(pkg.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
    expect(sorted(exported)).toEqual(sorted(specifiers));
  });

  it('each entry exports exactly its pinned names, values and types (the node build of /webhooks alike)', { timeout: 60_000 }, () => {
    const files = [...specifiers.map((specifier) => SURFACE[specifier].file), 'src/webhooks/index.node.ts'];
    const compiled = compiledExports(files);
    for (const specifier of specifiers) {
      const { file, values, types } = SURFACE[specifier];
      expect({ entry: specifier, ...compiled.get(file) }).toEqual({ entry: specifier, values: sorted(values), types: sorted(types) });
    }
    expect(compiled.get('src/webhooks/index.node.ts')).toEqual(compiled.get('src/webhooks/index.ts'));
  });

  it('each entry holds at run time exactly its pinned values', { timeout: 60_000 }, async () => {
    for (const specifier of specifiers) {
      const module = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
      const pinned = sorted(SURFACE[specifier].values);
      expect({ entry: specifier, values: sorted(Object.keys(module)) }).toEqual({ entry: specifier, values: pinned });
    }
  });

  it(`stays within ${BUDGET} names over all entries`, () => {
    const total = specifiers.reduce((sum, specifier) => sum + SURFACE[specifier].values.length + SURFACE[specifier].types.length, 0);
    expect(total).toBeLessThanOrEqual(BUDGET);
  });
});
