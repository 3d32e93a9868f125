import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent, createFakeCheckout, deliverEvent } from 'checkout-partner-sdk/testing';
import { http as mswHttp, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';

// deliverEvent to a real local receiver while msw's setupServer intercepts the process's requests
// (msw's default onUnhandledFrame: 'warn'): the delivery reaches the receiver and msw prints
// nothing. A partner needs no msw option for it.

const fake = createFakeCheckout();
const server = setupServer(
  ...fake.handlers('https://checkout.test'),
  // an msw handler may still stand in for a remote receiver
  mswHttp.post('https://receiver.test/webhooks', () => HttpResponse.text('mocked receiver')),
);
let warn: MockInstance<typeof console.warn>;
let error: MockInstance<typeof console.error>;
let stderr: MockInstance<typeof process.stderr.write>;
beforeAll(() => server.listen()); // msw's defaults: unhandled requests warn
afterAll(() => server.close());
afterEach(() => {
  vi.restoreAllMocks();
});

async function receiver() {
  const seen: http.IncomingHttpHeaders[] = [];
  const srv = http.createServer((req, res) => {
    seen.push(req.headers);
    req.resume().on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/webhooks`,
    seen,
    close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
  };
}

function captureOutput() {
  warn = vi.spyOn(console, 'warn');
  error = vi.spyOn(console, 'error');
  stderr = vi.spyOn(process.stderr, 'write');
  const printed = () => [...warn.mock.calls, ...error.mock.calls, ...stderr.mock.calls].map((call) => String(call[0]));
  return printed;
}

describe('deliverEvent inside msw setupServer', () => {
  it('reaches a real loopback receiver without an msw unhandled-request warning', async () => {
    const local = await receiver();
    const printed = captureOutput();
    try {
      const report = await deliverEvent(local.url, createEvent('otc.trade.settled', { tradeId: 't-1' }), {
        secret: 'whsec',
        duplicates: 1,
      });
      expect(report.deliveries.map((delivery) => delivery.status)).toEqual([200, 200]);
      expect(local.seen).toHaveLength(2);
      // msw removes its bypass marker before the request leaves
      expect(local.seen.map((headers) => headers.accept ?? '')).not.toContain('msw/passthrough');
      expect(printed().filter((text) => /MSW|unhandled|without a matching/i.test(text))).toEqual([]);
    } finally {
      await local.close();
    }
  });

  it('still goes through msw for a URL an msw handler serves (a stand-in remote receiver)', async () => {
    const report = await deliverEvent('https://receiver.test/webhooks', createEvent('custom.type'), { secret: 'whsec' });
    expect(report.deliveries[0]?.attempts[0]).toMatchObject({ status: 200, body: 'mocked receiver' });
  });
});
