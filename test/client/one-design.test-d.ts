import {
  CheckoutClient,
  ResponseValidationError,
  type DrainReport,
  type LogEntry,
  type Logger,
  type RawRequestOptions,
  type RecordReader,
  type StatusReader,
  type ValidationIssue,
} from 'checkout-partner-sdk';
import { createWebhookHandler, WebhookPayloadError, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import type { StatusTrackerOptions } from 'checkout-partner-sdk/tracker';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
import { describe, expectTypeOf, it } from 'vitest';

type ParseResult<T> = ReturnType<Extract<NonNullable<RawRequestOptions<T>['schema']>, { safeParse: unknown }>['safeParse']>;

// One logger contract across the SDK: a partner's single log function (and console, and a
// pino-like object) type-checks for the client, the webhook handler and the tracker, and every
// entry is told apart by `event`.

describe('one logger for the client, the webhook handler and the tracker', () => {
  it("takes a partner's single log function everywhere, narrowing on event", () => {
    const log = (entry: LogEntry): void => {
      switch (entry.event) {
        case 'client.attempt':
        case 'client.retry':
        case 'client.exchange':
          expectTypeOf(entry.method).toEqualTypeOf<string>();
          break;
        case 'webhook.delivery':
          expectTypeOf(entry.outcome).toExtend<string>();
          break;
        case 'webhook.warning':
          expectTypeOf(entry.warning).toEqualTypeOf<string>();
          break;
        default:
          expectTypeOf(entry.event).toExtend<`tracker.${string}`>();
          expectTypeOf(entry.externalId).toEqualTypeOf<string | undefined>();
      }
    };
    const client = new CheckoutClient({ logger: log });
    createWebhookHandler({ secret: 's', client, onEvent: () => undefined, logger: log });
    createStatusTracker({ client, onChange: () => undefined, logger: log });
    expectTypeOf(log).toExtend<Logger>();
  });

  it('takes console, a pino-like object, and false everywhere', () => {
    const method: (entry: object) => void = () => undefined;
    const pinoLike = { debug: method, info: method, warn: method, error: method };
    for (const logger of [console, pinoLike, false] as const) {
      const client = new CheckoutClient({ logger });
      createWebhookHandler({ secret: 's', client, onEvent: () => undefined, logger });
      createStatusTracker({ client, onChange: () => undefined, logger });
    }
    expectTypeOf(console).toExtend<Logger>();
  });

  it('one discriminant: every entry has event', () => {
    expectTypeOf<LogEntry['event']>().toExtend<`client.${string}` | `webhook.${string}` | `tracker.${string}`>();
  });

  it('one DrainReport for the handler and the tracker', () => {
    const client = new CheckoutClient({});
    expectTypeOf(
      createWebhookHandler({ secret: 's', client, onEvent: () => undefined }).drain,
    ).returns.resolves.toEqualTypeOf<DrainReport>();
    expectTypeOf(createStatusTracker({ client, onChange: () => undefined }).drain).returns.resolves.toEqualTypeOf<DrainReport>();
  });
});

describe('one type per concept', () => {
  it('RecordReader is what the handler and the tracker read through; a 1.1 StatusReader fits it', () => {
    expectTypeOf<WebhookHandlerOptions['client']>().toEqualTypeOf<RecordReader>();
    expectTypeOf<StatusTrackerOptions['client']>().toEqualTypeOf<RecordReader>();
    expectTypeOf<CheckoutClient>().toExtend<StatusReader>();
    expectTypeOf<CheckoutClient>().toExtend<RecordReader>();
    expectTypeOf<StatusReader>().toExtend<RecordReader>();
  });

  it('ValidationIssue is the issue of every error and parse result', () => {
    expectTypeOf<ResponseValidationError['issues'][number]>().toEqualTypeOf<ValidationIssue>();
    expectTypeOf<WebhookPayloadError['issues'][number]>().toEqualTypeOf<ValidationIssue>();
    expectTypeOf<Extract<ParseResult<unknown>, { success: false }>['error']['issues'][number]>().toEqualTypeOf<ValidationIssue>();
  });
});
