import type { Order, Withdrawal } from 'checkout-partner-sdk';
import {
  createFakeCheckout,
  deliverEvent,
  signEvent,
  type DeliveryReport,
  type FakeCheckoutStats,
  type FakeRequestRecord,
  type FakeServer,
  type SignedEvent,
} from 'checkout-partner-sdk/testing';
import type { HttpHandler } from 'msw';
import { describe, expectTypeOf, it } from 'vitest';

describe('testing kit types', () => {
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p', partnerSecret: 's' }], tokenTtlSeconds: 60 });

  it('types the fake', () => {
    expectTypeOf(fake.handlers('https://checkout.test')).toEqualTypeOf<HttpHandler[]>();
    expectTypeOf(fake.listen()).toEqualTypeOf<Promise<FakeServer>>();
    expectTypeOf(fake.fetch).toBeCallableWith(new Request('https://x.test'));
    expectTypeOf(fake.requests).toEqualTypeOf<readonly FakeRequestRecord[]>();
    expectTypeOf(fake.stats.tokenExchanges).toEqualTypeOf<number>();
    expectTypeOf(fake.setOrder).parameter(0).toEqualTypeOf<Order>();
    expectTypeOf(fake.setWithdrawal).returns.toEqualTypeOf<Withdrawal>();
    expectTypeOf(fake.getOrder('o')).toEqualTypeOf<Order | undefined>();
    expectTypeOf(fake.stats).toEqualTypeOf<FakeCheckoutStats>();
    // @ts-expect-error a withdrawal needs a status
    fake.setWithdrawal({ externalId: 'w' });
    // @ts-expect-error failNext takes a status number or 'network'
    fake.failNext(1, 'boom');
  });

  it('types the provider helpers', () => {
    expectTypeOf(deliverEvent('http://127.0.0.1:1', { eventId: 'e', type: 't' }, { secret: 's' })).toEqualTypeOf<Promise<DeliveryReport>>();
    expectTypeOf(signEvent('{}', 's')).toEqualTypeOf<Promise<SignedEvent>>();
    // @ts-expect-error the secret is required
    void deliverEvent('http://127.0.0.1:1', { eventId: 'e', type: 't' }, {});
  });
});
