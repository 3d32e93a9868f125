import * as z from 'zod/mini';
import type { ValidationIssue } from '../errors.js';
import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';
import { WebhookPayloadError } from './errors.js';

import type { EventOfType, WebhookEvent } from '../webhook-event.js';

export type {
  EventOfType,
  KnownWebhookEvent,
  OtcTradeCancelledEvent,
  OtcTradeSettledEvent,
  PixDepositEvent,
  PixWithdrawalEvent,
  WebhookEvent,
  WebhookEventBase,
} from '../webhook-event.js';

/**
 * Whether `event` has type `type`, narrowing it to that event's fields.
 *
 * @example
 * if (isEventType(event, 'otc.trade.settled') && typeof event.tradeId === 'string') markPaid(event.tradeId); // tradeId: string | null | undefined
 */
export function isEventType<T extends string>(event: WebhookEvent, type: T): event is EventOfType<T> {
  return event.type === type;
}

const OTC_WITH_TRADE = new Set(['otc.trade.settled', 'otc.trade.cancelled']);

/** What the known events may carry as `tradeId` or `endUserId`: nothing, `null` or a string. */
function isTradeId(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

/** What a `pix.deposit.*` event may carry as `tags`: nothing, `null` or an array of strings. */
function isTags(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.every((tag) => typeof tag === 'string'));
}

const EventSchema = z
  .looseObject({
    eventId: z.string().check(z.minLength(1, 'eventId must be a non-empty string')),
    type: z.optional(z.string()),
    // the alias counts only when it is a string and `type` is absent; otherwise it is kept as sent
    event: z.optional(z.unknown()),
  })
  .check(
    z.superRefine((value, ctx) => {
      const type = typeOf(value);
      if (type === undefined) {
        ctx.addIssue({ code: 'custom', path: ['type'], message: 'type (or its alias event) must be a string', input: undefined });
      } else if (OTC_WITH_TRADE.has(type) && !isTradeId(value['tradeId'])) {
        // API.md asks only for eventId and type, so a missing tradeId is accepted (a 400 would be
        // redelivered forever); one that is there must have the type the known event declares
        ctx.addIssue({
          code: 'custom',
          path: ['tradeId'],
          message: `${quote(type)} tradeId must be a string or null when present`,
          input: undefined,
        });
      } else if (type.startsWith('pix.deposit.')) {
        // the same rule for the fields the deposit event declares
        if (!isTradeId(value['endUserId'])) {
          ctx.addIssue({
            code: 'custom',
            path: ['endUserId'],
            message: `${quote(type)} endUserId must be a string or null when present`,
            input: undefined,
          });
        }
        if (!isTags(value['tags'])) {
          ctx.addIssue({
            code: 'custom',
            path: ['tags'],
            message: `${quote(type)} tags must be an array of strings or null when present`,
            input: undefined,
          });
        }
      }
    }),
  );

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Parses a webhook body into a {@link WebhookEvent}: a JSON object with a non-empty string
 * `eventId` and a string `type` (`event` is accepted as its alias and copied to `type`); every
 * other field is kept as sent. On `otc.trade.settled` and `otc.trade.cancelled`, a `tradeId`
 * may be absent or `null`, but one of another type than string is refused (the typed field would
 * lie); likewise `endUserId` (a string) and `tags` (an array of strings) on `pix.deposit.*`. Anything else throws {@link WebhookPayloadError}. It does not check the
 * signature: verify first (or use `createWebhookHandler`, which does both).
 *
 * @example
 * const event = parseEvent(rawBody); // { eventId: 'e-1', type: 'otc.trade.settled', tradeId: 't-1', ... }
 */
export function parseEvent(payload: string | Uint8Array): WebhookEvent {
  let text: string;
  if (typeof payload === 'string') {
    text = payload;
  } else if (payload instanceof Uint8Array) {
    try {
      text = decoder.decode(payload);
    } catch {
      throw invalid('The webhook body is not valid UTF-8', [{ code: 'invalid_utf8', path: [], message: 'Not valid UTF-8' }]);
    }
  } else {
    throw new TypeError(`payload must be a string or a Uint8Array, got ${typeName(payload)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the body, so it is not passed on
    throw invalid('The webhook body is not valid JSON', [{ code: 'invalid_json', path: [], message: 'Not valid JSON' }]);
  }
  const result = EventSchema.safeParse(json);
  if (!result.success) {
    const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
      code: issue.code,
      path: issue.path,
      message: issue.message,
    }));
    const summary = issues
      .slice(0, 3)
      .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
      .join('; ');
    throw invalid(`The webhook body is not a valid event: ${summary}`, issues);
  }
  const { data } = result;
  const type = typeOf(data);
  return (data.type === type ? data : { ...data, type }) as WebhookEvent; // validated above
}

/** `type`, or the `event` alias when `type` is absent and `event` is a string. */
function typeOf(value: { type?: string | undefined; event?: unknown }): string | undefined {
  return value.type ?? (typeof value.event === 'string' ? value.event : undefined);
}

function invalid(message: string, issues: ValidationIssue[]): WebhookPayloadError {
  return new WebhookPayloadError(message, issues);
}
