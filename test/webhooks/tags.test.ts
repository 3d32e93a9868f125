import { isEventType, parseEvent, tagValue, WebhookPayloadError } from 'checkout-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { delivery, mockCheckout, setupHandler } from './helpers.js';

const { state } = mockCheckout();

describe('pix.deposit correlation: endUserId and tags', () => {
  it('parses endUserId and tags on pix.deposit.* as sent', () => {
    const event = parseEvent(JSON.stringify({ eventId: 'd-1', type: 'pix.deposit.confirmed', endUserId: 'eu-7', tags: ['user:order-42'] }));
    expect(isEventType(event, 'pix.deposit.confirmed') && [event.endUserId, event.tags]).toEqual(['eu-7', ['user:order-42']]);
    expect(parseEvent('{"eventId":"d-2","type":"pix.deposit.received","endUserId":null,"tags":null}')).toMatchObject({
      endUserId: null,
      tags: null,
    });
    expect(parseEvent('{"eventId":"d-3","type":"pix.deposit.received"}')).toEqual({ eventId: 'd-3', type: 'pix.deposit.received' });
  });

  it.each([
    ['an endUserId that is not a string', { endUserId: 7 }, 'endUserId'],
    ['tags that are not an array', { tags: 'user:order-42' }, 'tags'],
    ['tags with a non-string', { tags: ['user:order-42', 3] }, 'tags'],
  ])('refuses %s on pix.deposit.* (the typed field would lie)', (_label, fields, path) => {
    const body = JSON.stringify({ eventId: 'd-bad', type: 'pix.deposit.confirmed', ...fields });
    const error = (() => {
      try {
        parseEvent(body);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect((error as WebhookPayloadError).issues).toEqual([expect.objectContaining({ path: [path] })]);
  });

  it('leaves the same fields alone on other types', () => {
    expect(parseEvent('{"eventId":"x","type":"custom","tags":5,"endUserId":{}}')).toMatchObject({ tags: 5, endUserId: {} });
  });

  it("reads a tag's value with tagValue(event, key)", () => {
    const event = parseEvent(
      JSON.stringify({ eventId: 'd-4', type: 'pix.deposit.confirmed', tags: ['channel:app', 'user:ord:42', 'user:second'] }),
    );
    expect(tagValue(event, 'user')).toBe('ord:42'); // the first, everything after the first colon
    expect(tagValue(event, 'channel')).toBe('app');
    expect(tagValue(event, 'use')).toBeUndefined();
    expect(tagValue(event, 'campaign')).toBeUndefined();
    expect(tagValue({ eventId: 'n', type: 'pix.deposit.x' }, 'user')).toBeUndefined();
    expect(tagValue({ eventId: 'n', type: 'custom', tags: 'user:1' }, 'user')).toBeUndefined();
  });

  it('rejects bad tagValue arguments with TypeError', () => {
    expect(() => tagValue(null as never, 'user')).toThrow(/tagValue takes a webhook event/);
    expect(() => tagValue({ eventId: 'e', type: 't' }, '')).toThrow(/key must be a non-empty string/);
    expect(() => tagValue({ eventId: 'e', type: 't' }, 5 as never)).toThrow(TypeError);
  });

  it('lets resolveOrderExternalId map the user tag (or endUserId) to the order it reads', async () => {
    state.orders.set('ext-42', { externalId: 'ext-42', settlement: { status: 'Pending', tradeId: null } });
    state.orders.set('ext-of-eu-9', { externalId: 'ext-of-eu-9' });
    const { handler, seen } = setupHandler({
      resolveOrderExternalId: (event) => {
        const orderId = tagValue(event, 'user');
        if (orderId !== undefined) return `ext-${orderId}`;
        return typeof event.endUserId === 'string' ? `ext-of-${event.endUserId}` : undefined;
      },
    });
    await handler.handle(await delivery({ eventId: 'd-5', type: 'pix.deposit.confirmed', tags: ['user:42'] }));
    await handler.handle(await delivery({ eventId: 'd-6', type: 'pix.deposit.confirmed', endUserId: 'eu-9' }));
    expect(seen.map((c) => [c.order?.externalId, c.confirmed])).toEqual([
      ['ext-42', false],
      ['ext-of-eu-9', false],
    ]);
  });
});
