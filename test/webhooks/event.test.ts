import { CheckoutError } from 'checkout-partner-sdk';
import { isEventType, parseEvent, WebhookPayloadError } from 'checkout-partner-sdk/webhooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const fail = (payload: string | Uint8Array): WebhookPayloadError => {
  try {
    parseEvent(payload);
  } catch (error) {
    if (error instanceof WebhookPayloadError) return error;
    throw error;
  }
  throw new Error('parseEvent accepted it');
};

describe('parseEvent', () => {
  it('keeps every field as sent', () => {
    const body = { eventId: 'e-1', type: 'otc.trade.settled', tradeId: 't-1', amount: '1.5', nested: { a: [1, null] } };
    expect(parseEvent(JSON.stringify(body))).toEqual(body);
    expect(parseEvent(new TextEncoder().encode(JSON.stringify(body)))).toEqual(body);
  });

  it('takes `event` as the alias of `type`', () => {
    expect(parseEvent('{"eventId":"e-1","event":"pix.deposit.received","x":1}')).toEqual({
      eventId: 'e-1',
      event: 'pix.deposit.received',
      type: 'pix.deposit.received',
      x: 1,
    });
    expect(parseEvent('{"eventId":"e-1","event":"a","type":"b"}').type).toBe('b');
  });

  it('keeps an `event` field that is not a string as sent when `type` is given', () => {
    expect(parseEvent('{"eventId":"e-1","type":"custom","event":{"kind":"x"}}')).toEqual({
      eventId: 'e-1',
      type: 'custom',
      event: { kind: 'x' },
    });
    expect(() => parseEvent('{"eventId":"e-1","event":{"kind":"x"}}')).toThrow(/type/);
  });

  it.each([
    ['without tradeId', { eventId: 'e', type: 'otc.trade.settled' }],
    ['with a null tradeId', { eventId: 'e', type: 'otc.trade.settled', tradeId: null }],
    ['with an empty tradeId', { eventId: 'e', type: 'otc.trade.cancelled', tradeId: '' }],
    ['cancelled, without tradeId', { eventId: 'e', type: 'otc.trade.cancelled', other: 1 }],
  ])('accepts otc.trade.* %s (API.md asks only for eventId and type), every field as sent', (_label, body) => {
    expect(parseEvent(JSON.stringify(body))).toEqual(body);
  });

  it('names tradeId in the issue of a malformed one, without quoting it', () => {
    const error = fail('{"eventId":"e","type":"otc.trade.settled","tradeId":12345678}');
    expect(error.issues).toMatchObject([{ code: 'custom', path: ['tradeId'] }]);
    expect(error.message).toMatch(/tradeId must be a string or null/);
    expect(error.message).not.toContain('12345678');
  });

  it('accepts unknown types', () => {
    expect(parseEvent('{"eventId":"e","type":"something.new"}').type).toBe('something.new');
    expect(parseEvent('{"eventId":"e","type":""}').type).toBe('');
  });

  it.each([
    ['not JSON', '{', 'invalid_json'],
    ['empty', '', 'invalid_json'],
    ['an array', '[]', undefined],
    ['a string', '"e"', undefined],
    ['null', 'null', undefined],
    ['no eventId', '{"type":"x"}', undefined],
    ['a number eventId', '{"eventId":1,"type":"x"}', undefined],
    ['an empty eventId', '{"eventId":"","type":"x"}', undefined],
    ['no type', '{"eventId":"e"}', 'custom'],
    ['a number type', '{"eventId":"e","type":3}', undefined],
    ['otc.trade.settled with a numeric tradeId', '{"eventId":"e","type":"otc.trade.settled","tradeId":5}', 'custom'],
    ['otc.trade.cancelled with an object tradeId', '{"eventId":"e","type":"otc.trade.cancelled","tradeId":{"id":"t"}}', 'custom'],
    ['otc.trade.settled (by alias) with a boolean tradeId', '{"eventId":"e","event":"otc.trade.settled","tradeId":true}', 'custom'],
  ])('throws WebhookPayloadError for %s', (_label, body, code) => {
    const error = fail(body);
    expect(error).toBeInstanceOf(CheckoutError);
    expect(error.name).toBe('WebhookPayloadError');
    expect(error.issues.length).toBeGreaterThan(0);
    if (code !== undefined) expect(error.issues[0]?.code).toBe(code);
  });

  it('throws WebhookPayloadError for bytes that are not UTF-8', () => {
    expect(fail(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])).issues[0]?.code).toBe('invalid_utf8');
  });

  it('never puts the body in the message', () => {
    const secretish = 'body-marker-' + 'x'.repeat(500);
    for (const body of [`{"eventId":1,"type":"${secretish}"}`, `{"${secretish}`, `{"eventId":"${secretish}"}`]) {
      const error = fail(body);
      expect(error.message).not.toContain('body-marker');
      expect(JSON.stringify(error.issues)).not.toContain('body-marker');
    }
  });

  it('throws TypeError for a payload of the wrong type', () => {
    expect(() => parseEvent(42 as never)).toThrow(TypeError);
    expect(() => parseEvent({ eventId: 'e' } as never)).toThrow(TypeError);
  });

  it('does not let a __proto__ key change the prototype', () => {
    const event = parseEvent('{"eventId":"e","type":"x","__proto__":{"polluted":true}}');
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect((event as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('on arbitrary JSON, returns a valid event or throws only WebhookPayloadError', () => {
    const candidate = fc.oneof(
      fc.jsonValue(),
      fc.record({ eventId: fc.jsonValue(), type: fc.jsonValue(), tradeId: fc.jsonValue() }, { requiredKeys: [] }),
      fc.record({ eventId: fc.string(), event: fc.string(), other: fc.jsonValue() }, { requiredKeys: [] }),
      fc.dictionary(fc.string(), fc.jsonValue()),
    );
    fc.assert(
      fc.property(candidate, fc.boolean(), (value, asBytes) => {
        const text = JSON.stringify(value) ?? 'undefined';
        const payload = asBytes ? new TextEncoder().encode(text) : text;
        try {
          const event = parseEvent(payload);
          expect(typeof event.eventId === 'string' && event.eventId !== '').toBe(true);
          expect(typeof event.type).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookPayloadError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('on arbitrary text and bytes, throws only WebhookPayloadError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 100 })), (payload) => {
        try {
          parseEvent(payload);
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookPayloadError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('isEventType', () => {
  it('matches the exact type', () => {
    const event = parseEvent('{"eventId":"e","type":"otc.trade.settled","tradeId":"t"}');
    expect(isEventType(event, 'otc.trade.settled')).toBe(true);
    expect(isEventType(event, 'otc.trade.cancelled')).toBe(false);
  });
});
