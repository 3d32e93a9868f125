import { createWebhookHandler, signPayload, verifySignature } from 'checkout-partner-sdk/webhooks';
import { createEvent, deliverEvent, signEvent } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { makeClient } from '../helpers.js';

// A secret of whitespace only (an unset variable padded by a template, a blank `.env` value) is as
// guessable as an empty one: refused with a TypeError wherever a signing secret is taken.
const BLANK = [' ', '   ', '\t', '\n', ' \r\n\t ', '\u00a0', '\u2003\u3000'];

const handlerWith = (secret: unknown) => () =>
  createWebhookHandler({ secret: secret as string, client: makeClient(), resolveOrderExternalId: () => undefined, onEvent: () => {} });

describe('a whitespace-only webhook secret is refused', () => {
  it.each(BLANK)('createWebhookHandler refuses %j, alone or inside the rotation list, naming where', (blank) => {
    expect(handlerWith(blank)).toThrow(new TypeError('secret must be a non-empty string, got a string of whitespace only'));
    expect(handlerWith(['current-secret', blank])).toThrow(
      new TypeError('secret[1] must be a non-empty string, got a string of whitespace only'),
    );
    expect(handlerWith([blank, 'current-secret'])).toThrow(/secret\[0\]/);
  });

  it.each(BLANK)('verifySignature and signPayload refuse %j', async (blank) => {
    const signature = await signPayload('{}', 'real-secret');
    await expect(verifySignature({ payload: '{}', signature, secret: blank })).rejects.toThrow(TypeError);
    await expect(verifySignature({ payload: '{}', signature, secret: ['real-secret', blank] })).rejects.toThrow(
      /secret\[1\].*whitespace only/,
    );
    await expect(signPayload('{}', blank)).rejects.toThrow(
      new TypeError('secret must be a non-empty string, got a string of whitespace only'),
    );
  });

  it('the testing kit signs with no blank secret either', async () => {
    await expect(signEvent('{}', '  ')).rejects.toThrow(TypeError);
    await expect(deliverEvent('http://127.0.0.1:9/webhooks', createEvent('otc.trade.settled'), { secret: ' \t' })).rejects.toThrow(
      TypeError,
    );
  });

  it('a secret with spaces around real characters is still a secret (used as given)', async () => {
    const signature = await signPayload('{}', ' padded secret ');
    expect(await verifySignature({ payload: '{}', signature, secret: ' padded secret ' })).toBe(true);
    expect(await verifySignature({ payload: '{}', signature, secret: 'padded secret' })).toBe(false);
    expect(handlerWith([' padded secret '])).not.toThrow();
  });

  it('the error never shows the secret', () => {
    try {
      handlerWith(['sk_live_secret', '\t '])();
    } catch (error) {
      expect((error as Error).message).not.toContain('sk_live_secret');
    }
    expect.assertions(1);
  });
});
