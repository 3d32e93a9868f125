import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CheckoutError } from 'checkout-partner-sdk';
import { parseEvent, WebhookPayloadError } from 'checkout-partner-sdk/webhooks';

// Hostile webhook bodies: parseEvent returns an event that keeps every field as sent, or throws
// WebhookPayloadError, and nothing else, whatever the bytes, text or JSON.

const field = fc.oneof(fc.string(), fc.constant(''), fc.integer(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
const eventLike = fc.record(
  {
    eventId: field,
    type: fc.oneof(field, fc.constantFrom('otc.trade.settled', 'otc.trade.cancelled', 'pix.withdrawal.settled', 'pix.deposit.received')),
    event: fc.oneof(field, fc.constantFrom('otc.trade.settled', 'pix.withdrawal.settled')),
    tradeId: field,
    ['__proto__']: fc.jsonValue({ maxDepth: 1 }),
    constructor: fc.jsonValue({ maxDepth: 1 }),
    data: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: [], noNullPrototype: true },
);
const json = fc.oneof(fc.jsonValue({ maxDepth: 4 }), eventLike);

/** parseEvent's outcome: the event, or the error it threw. */
function attempt(payload: string | Uint8Array): { event: Record<string, unknown> } | { error: unknown } {
  try {
    return { event: parseEvent(payload) };
  } catch (error) {
    return { error };
  }
}

function expectPayloadError(error: unknown): void {
  expect(error).toBeInstanceOf(WebhookPayloadError);
  expect(error).toBeInstanceOf(CheckoutError);
  expect((error as WebhookPayloadError).name).toBe('WebhookPayloadError');
  expect((error as WebhookPayloadError).issues.length).toBeGreaterThan(0);
}

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== '';

describe('parseEvent with hostile input', () => {
  it('arbitrary JSON: an event exactly as sent, or WebhookPayloadError', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (value, asBytes) => {
        const text = JSON.stringify(value);
        const outcome = attempt(asBytes ? new TextEncoder().encode(text) : text);
        const sent = JSON.parse(text) as Record<string, unknown>; // what the provider sent, own keys as JSON has them
        const isObject = sent !== null && typeof sent === 'object' && !Array.isArray(sent);
        const type = isObject ? (typeof sent.type === 'string' ? sent.type : sent.type === undefined ? sent.event : undefined) : undefined;
        // API.md: a non-empty string eventId and a string type; on otc.trade.*, a tradeId that is
        // there must be a string or null (absent is fine: the provider would redeliver a 400 forever)
        const tradeTyped = type === 'otc.trade.settled' || type === 'otc.trade.cancelled';
        const badTrade = tradeTyped && 'tradeId' in sent && sent.tradeId !== null && typeof sent.tradeId !== 'string';
        const mustParse = isObject && nonEmptyString(sent.eventId) && typeof sent.type === 'string' && !('event' in sent) && !badTrade;
        const mustThrow =
          !isObject || !nonEmptyString(sent.eventId) || (typeof sent.type !== 'string' && typeof sent.event !== 'string') || badTrade;
        if ('error' in outcome) {
          expectPayloadError(outcome.error);
          expect(mustParse).toBe(false);
          return;
        }
        expect(mustThrow).toBe(false);
        const event = outcome.event;
        expect(event.eventId).toBe(sent.eventId);
        expect(typeof event.type).toBe('string');
        // every field kept as sent (the alias `event` is copied to `type`); a "__proto__" key is
        // dropped rather than turned into the event's prototype
        for (const key of Object.keys(sent)) {
          if (key !== '__proto__') expect(Object.hasOwn(event, key) && event[key]).toEqual(sent[key]);
        }
        expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
        expect({}.constructor).toBe(Object); // nothing polluted through "__proto__" or "constructor"
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary bytes and text: an event or WebhookPayloadError, never another error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.json()), (payload) => {
        const outcome = attempt(payload);
        if ('error' in outcome) expectPayloadError(outcome.error);
        else expect(nonEmptyString(outcome.event.eventId) && typeof outcome.event.type === 'string').toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('otc.trade.* without tradeId, or with any string or null, parses; with any other JSON it is a payload error', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('otc.trade.settled', 'otc.trade.cancelled'),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        (type, tradeId) => {
          const sent = tradeId === undefined ? { eventId: 'e-1', type } : { eventId: 'e-1', type, tradeId };
          const outcome = attempt(JSON.stringify(sent));
          if (tradeId === undefined || tradeId === null || typeof tradeId === 'string') {
            expect('event' in outcome && outcome.event).toEqual(sent);
          } else {
            expect('error' in outcome).toBe(true);
            expectPayloadError((outcome as { error: unknown }).error);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('invalid UTF-8 and a lone BOM are payload errors, not crashes', () => {
    for (const bytes of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0xf8, 0x88, 0x80, 0x80, 0x80]]) {
      const outcome = attempt(new Uint8Array(bytes));
      expect('error' in outcome && outcome.error).toBeInstanceOf(WebhookPayloadError);
    }
  });

  it('a message never quotes the body', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 12, maxLength: 60 }).filter((s) => /^[A-Za-z0-9]+$/.test(s)),
        (marker) => {
          for (const body of [`not json ${marker}`, JSON.stringify({ eventId: '', type: marker }), JSON.stringify([marker])]) {
            const outcome = attempt(body);
            expect('error' in outcome).toBe(true);
            const error = (outcome as { error: WebhookPayloadError }).error;
            expect(error.message).not.toContain(marker);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
