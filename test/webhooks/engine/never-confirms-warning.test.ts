import { createWebhookHandler, signPayload, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { makeClient, SECRET } from '../helpers.js';

// A handler given onEvent but no resolver of either kind can never read a record, so every event
// reaches onEvent with confirmed: false. It says so once, when it is created, naming the options.

let stderr: MockInstance<typeof console.error>;
beforeEach(() => {
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => stderr.mockRestore());

const base = (): WebhookHandlerOptions => ({ secret: SECRET, client: makeClient(), onEvent: () => {} });
// the memory-store notice (test/internal/memory-notice.test.ts, at a first delivery) aside
const warnings = () => stderr.mock.calls.map((call) => String(call[0])).filter((line) => !line.includes(' notice memory-store: '));

describe('a handler that can never confirm anything warns once at construction', () => {
  it('on stderr by default, naming resolveOrderExternalId and resolveWithdrawalExternalId', () => {
    createWebhookHandler(base());
    expect(warnings()).toHaveLength(1);
    const line = warnings()[0];
    expect(line).toMatch(/^checkout-partner-sdk webhook warning never-confirms: /);
    expect(line).toContain('resolveOrderExternalId');
    expect(line).toContain('resolveWithdrawalExternalId');
    expect(line).toContain('confirmed: false');
  });

  it("through a logger object's warn, as one entry", () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    createWebhookHandler({ ...base(), logger });
    expect(logger.warn).toHaveBeenCalledOnce();
    expect(logger.warn.mock.calls[0]?.[0]).toEqual({
      event: 'webhook.warning',
      warning: 'never-confirms',
      message: expect.stringContaining('resolveOrderExternalId'),
    });
    expect(stderr).not.toHaveBeenCalled();
  });

  it('through a function logger too, as the same entry', () => {
    const logger = vi.fn();
    createWebhookHandler({ ...base(), logger });
    expect(logger.mock.calls).toEqual([
      [{ event: 'webhook.warning', warning: 'never-confirms', message: expect.stringContaining('resolveOrderExternalId') }],
    ]);
    expect(stderr).not.toHaveBeenCalled();
  });

  it('not with logger: false, nor with either resolver', () => {
    createWebhookHandler({ ...base(), logger: false });
    createWebhookHandler({ ...base(), resolveOrderExternalId: () => 'o-1' });
    createWebhookHandler({ ...base(), resolveWithdrawalExternalId: () => 'w-1' });
    expect(stderr).not.toHaveBeenCalled();
  });

  it('not from a construction that then throws (an option checked last, e.g. meterProvider)', () => {
    expect(() => createWebhookHandler({ ...base(), meterProvider: {} as never })).toThrow(TypeError);
    expect(() => createWebhookHandler({ ...base(), tracerProvider: {} as never })).toThrow(TypeError);
    expect(stderr).not.toHaveBeenCalled();
  });

  it('once per handler, not per delivery', async () => {
    const handler = createWebhookHandler(base());
    await handler.handle(new Request('http://127.0.0.1/webhooks', { method: 'POST', body: '{}' }));
    for (let n = 0; n < 3; n += 1) {
      const body = JSON.stringify({ eventId: `evt-once-${n}`, type: 'otc.trade.settled', tradeId: 't-1' });
      const signed = new Request('http://127.0.0.1/webhooks', {
        method: 'POST',
        body,
        headers: { 'x-provider-signature': await signPayload(body, SECRET) },
      });
      expect((await handler.handle(signed)).status).toBe(200);
    }
    expect(warnings()).toHaveLength(1);
    // a second handler warns once more: the warning belongs to each handler built that way
    createWebhookHandler(base());
    expect(warnings()).toHaveLength(2);
  });
});
