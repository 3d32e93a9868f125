import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The public surface, pinned: every name each entry point exports, runtime values and types
// apart. A new export (or a dropped one) fails here, so it is a deliberate change: add it below,
// with its TSDoc. Two rules hold it: every type a public signature uses is exported (no forgotten
// export: test/package/forgotten-exports.test.ts), and the runtime values stay few (VALUE_BUDGET).
// Types cost a partner nothing; a runtime value is API to keep.
const SURFACE = {
  'checkout-partner-sdk': {
    file: 'src/index.ts',
    values: [
      'ApiError',
      'AuthenticationError',
      'CheckoutClient',
      'CheckoutError',
      'ConnectionError',
      'HandlingAbandonedError',
      'MeSchema',
      'NotFoundError',
      'OrderSchema',
      'PermissionDeniedError',
      'QueueFullError',
      'RateLimitError',
      'ResponseTooLargeError',
      'ResponseValidationError',
      'ServerError',
      'StoreRequiredError',
      'TimeoutError',
      'TokenResponseSchema',
      'WaitTimeoutError',
      'WithdrawalSchema',
    ],
    types: [
      'AbandonReason',
      'ApiErrorInit',
      'CheckoutClientOptions',
      'ClientLogEntry',
      'Currency',
      'DrainOptions',
      'DrainReport',
      'InHandDelivery',
      'InHandRecord',
      'InHandWork',
      'KindRecord',
      'KindRecords',
      'KindReads',
      'KindResponseReads',
      'KindWaits',
      'KnownString',
      'LogEntry',
      'LogError',
      'Logger',
      'Me',
      'MeterProviderLike',
      'OpenTelemetryApiLike',
      'Order',
      'ParseResult',
      'ParseSchema',
      'PartnerSecret',
      'RateLimitOptions',
      'RawRequestOptions',
      'ReadName',
      'ReadOptions',
      'RecordOf',
      'RecordReader',
      'RequestOptions',
      'ResolverName',
      'ResponseInfo',
      'ResponseReads',
      'ResponseSchema',
      'RetryBudgetOptions',
      'Settlement',
      'SettlementStatus',
      'StandardPathSegment',
      'StandardSchemaResult',
      'StandardSchemaTypes',
      'StandardSchemaV1',
      'StatusKind',
      'StatusReader',
      'TelemetryOptions',
      'TokenResponse',
      'TracerProviderLike',
      'TrackerLogEntry',
      'ValidationIssue',
      'WaitOptions',
      'WebhookLogEntry',
      'WebhookWarning',
      'WithResponse',
      'Withdrawal',
      'WithdrawalStatus',
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
      'ConfirmOptions',
      'EventOfType',
      'EventStore',
      'ExternalIdResolver',
      'ExternalIdResolvers',
      'FastifyReplyLike',
      'FastifyRequestLike',
      'HandleOptions',
      'KeptBody',
      'KindRecord',
      'KindResolverOptions',
      'KnownEventTypes',
      'KnownWebhookEvent',
      'KoaContextLike',
      'MemoryEventStoreOptions',
      'NodeRequestLike',
      'NodeResponseLike',
      'OnEvent',
      'OtcTradeCancelledEvent',
      'OtcTradeSettledEvent',
      'PayloadInput',
      'PixDepositEvent',
      'PixWithdrawalEvent',
      'RecordOf',
      'RequestEndState',
      'ResolverName',
      'SignatureScheme',
      'SignatureSchemeInput',
      'StatusKind',
      'TransactionalWebhookContext',
      'VerifySignatureInput',
      'WebhookContext',
      'WebhookContextRecords',
      'WebhookEvent',
      'WebhookEventBase',
      'WebhookHandler',
      'WebhookHandlerHealth',
      'WebhookHandlerOptions',
      'WebhookOutcome',
      'WebhookSecret',
      'WebhookSecretSource',
      'WebhookTracker',
    ],
  },
  'checkout-partner-sdk/redis': {
    file: 'src/redis/index.ts',
    values: ['RedisEventStore', 'RedisStatusStore', 'RedisStoreError', 'RedisTokenStore'],
    types: [
      'IoRedisClientLike',
      'NodeRedisClientLike',
      'NodeRedisClusterLike',
      'RedisClientLike',
      'RedisEventStoreOptions',
      'RedisStatusStoreOptions',
      'RedisStoreOperation',
      'RedisTokenStoreOptions',
      'WaitForReplicas',
    ],
  },
  'checkout-partner-sdk/postgres': {
    file: 'src/postgres/index.ts',
    values: ['PostgresEventStore', 'PostgresStatusStore', 'PostgresStoreError', 'PostgresTransactionError'],
    types: [
      'PgPoolClientLike',
      'PgQueryResult',
      'PostgresEventStoreOptions',
      'PostgresJsSqlLike',
      'PostgresJsTransactionLike',
      'PostgresPoolLike',
      'PostgresStatusStoreOptions',
      'PostgresStatusTransact',
      'PostgresStoreOperation',
      'PostgresTransact',
      'PostgresTransaction',
      'PostgresTransactionErrorReason',
    ],
  },
  'checkout-partner-sdk/tracker': {
    file: 'src/tracker/index.ts',
    values: [
      'MAX_TRACKED_EVENT_BYTES',
      'MemoryStatusStore',
      'StatusStoreFullError',
      'StatusStoreTimeoutError',
      'createStatusTracker',
      'isFinalStatus',
      'isSuccessStatus',
    ],
    types: [
      'TrackerHealthOptions',
      'KindRecords',
      'KindStatusChange',
      'KindWatches',
      'MemoryStatusStoreOptions',
      'OnStatusChange',
      'OrderStatusChange',
      'RecordOf',
      'RecordRef',
      'StatusChange',
      'StatusChangeBase',
      'StatusChangesByKind',
      'StatusKind',
      'StatusScheduleOptions',
      'StatusSource',
      'StatusStore',
      'StatusTracker',
      'StatusTrackerOptions',
      'TrackerHealth',
      'TransactionalStatusChange',
      'WatchArguments',
      'WatchEndReason',
      'WithdrawalStatusChange',
    ],
  },
  // for those who write a store: the contracts and their plumbing, out of the partner's way
  'checkout-partner-sdk/stores': {
    file: 'src/stores/index.ts',
    values: ['LeaseLostError', 'NUDGE_PRIORITY_MS'],
    types: [
      'ClaimDueRequest',
      'ClaimOptions',
      'ClaimResult',
      'ClaimedLease',
      'ClaimedStatusRecord',
      'EventStore',
      'KindRecords',
      'LastEvent',
      'OverdueRecords',
      'StatusKind',
      'StatusLease',
      'StatusNext',
      'StatusRecordState',
      'StatusStore',
      'StatusTurn',
      'StoredToken',
      'TokenStore',
      'TransactOptions',
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
      'ChangeOptions',
      'DROP_CONNECTION',
      'DeliverEventOptions',
      'Delivery',
      'DeliveryAttempt',
      'DeliveryReport',
      'FailNextOptions',
      'FakeCheckoutCore',
      'FakeCheckoutOptions',
      'FakeCheckoutStats',
      'FakeKindReads',
      'FakeMswHandler',
      'FakePartner',
      'FakeKindRecords',
      'FakeRecords',
      'FakeRecordsByKind',
      'FakeRequestRecord',
      'FakeRoute',
      'FakeRouteMethod',
      'FakeRouteParamNames',
      'FakeRouteParams',
      'FakeRouteRequest',
      'FakeRouteResponse',
      'FakeServer',
      'FakeStatusReads',
      'FaultMatcher',
      'FaultRequest',
      'FaultRequestKind',
      'FaultStatus',
      'FaultTarget',
      'ListenOptions',
      'PlayingTimeline',
      'ProviderEvent',
      'ProviderSimulator',
      'ProviderSimulatorOptions',
      'ProviderSimulatorStats',
      'SignedEvent',
      'TimelineKeyedStep',
      'TimelineOptions',
      'TimelineRecordStep',
      'TimelineStep',
      'TimelineTarget',
    ],
  },
  'checkout-partner-sdk/testing/msw': {
    file: 'src/testing/msw.ts',
    values: ['fakeCheckoutHandlers'],
    types: [],
  },
} as const satisfies Record<string, { file: string; values: readonly string[]; types: readonly string[] }>;

/** At most this many runtime values over all entries (a value exported by two entries counts twice). */
const VALUE_BUDGET = 60;

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
      // `export type { FakeCheckoutCore }`: a class or const exported for its type only is no runtime value
      (target.flags & ts.SymbolFlags.Value && !typeOnly(checker, symbol) ? values : types).push(symbol.name);
    }
    out.set(file, { values: values.sort(), types: types.sort() });
  }
  return out;
}

/** Whether an export reaches its declaration through an `export type` or `import type` on the way. */
function typeOnly(checker: ts.TypeChecker, exported: ts.Symbol): boolean {
  let symbol: ts.Symbol | undefined = exported;
  for (let hops = 0; symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias && hops < 16; hops += 1) {
    for (const declaration of symbol.declarations ?? []) {
      if (ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly)) return true;
      if (
        ts.isImportSpecifier(declaration) &&
        (declaration.isTypeOnly || declaration.parent.parent.phaseModifier === ts.SyntaxKind.TypeKeyword)
      )
        return true;
    }
    symbol = checker.getImmediateAliasedSymbol(symbol);
  }
  return false;
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

  it(`keeps the runtime values few: at most ${VALUE_BUDGET} over all entries`, () => {
    const total = specifiers.reduce((sum, specifier) => sum + SURFACE[specifier].values.length, 0);
    expect(total).toBeLessThanOrEqual(VALUE_BUDGET);
  });
});
