import type { Order, StatusKind, Withdrawal } from 'checkout-partner-sdk';
import {
  createFakeCheckout,
  defineFakeRoute,
  type FakeRoute,
  deliverEvent,
  signEvent,
  type DeliveryReport,
  type FakeServer,
  type FakeStatusReads,
  playTimeline,
  type SignedEvent,
  type TimelineRecordStep,
  type TimelineStep,
} from 'checkout-partner-sdk/testing';
import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';
import type { HttpHandler } from 'msw';
import { setupServer } from 'msw/node';
import { describe, expectTypeOf, it } from 'vitest';

describe('testing kit types', () => {
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p', partnerSecret: 's' }], tokenTtlSeconds: 60 });

  it('types the fake', () => {
    // /testing's declarations never name msw's types (they fail under node10 with msw 3): any, so
    // they spread into every msw version's setupServer; /testing/msw gives msw's own type
    expectTypeOf(fake.handlers('https://checkout.test')).toBeArray();
    expectTypeOf(fake.handlers('https://checkout.test')).items.toBeAny();
    expectTypeOf(fakeCheckoutHandlers(fake, 'https://checkout.test')).toEqualTypeOf<HttpHandler[]>();
    expectTypeOf(setupServer).toBeCallableWith(
      ...fake.handlers('https://checkout.test'),
      ...fakeCheckoutHandlers(fake, 'https://checkout.test'),
    );
    expectTypeOf(fake.listen()).toEqualTypeOf<Promise<FakeServer>>();
    expectTypeOf(fake.fetch).toBeCallableWith(new Request('https://x.test'));
    expectTypeOf(fake.requests).toEqualTypeOf<
      readonly {
        readonly method: string;
        readonly path: string;
        readonly headers: Readonly<Record<string, string>>;
        readonly status: number;
        readonly at: number;
      }[]
    >();
    expectTypeOf(fake.stats.tokenExchanges).toEqualTypeOf<number>();
    expectTypeOf(fake.setOrder).parameter(0).toEqualTypeOf<Order>();
    expectTypeOf(fake.setWithdrawal).returns.toEqualTypeOf<Withdrawal>();
    expectTypeOf(fake.getOrder('o')).toEqualTypeOf<Order | undefined>();
    expectTypeOf(fake.stats).toEqualTypeOf<{
      readonly requests: number;
      readonly tokenExchanges: number;
      readonly tokensIssued: number;
      readonly businessCalls: number;
      readonly unauthorized: number;
      readonly notFound: number;
      readonly faultsInjected: number;
      readonly statusReads: FakeStatusReads;
    }>();
    // by kind (every kind of the table) and by record
    expectTypeOf<keyof FakeStatusReads>().toEqualTypeOf<StatusKind>();
    expectTypeOf(fake.stats.statusReads.order.total).toEqualTypeOf<number>();
    expectTypeOf(fake.stats.statusReads.withdrawal.byExternalId['w-1']).toEqualTypeOf<number | undefined>();
    // @ts-expect-error a withdrawal needs a status
    fake.setWithdrawal({ externalId: 'w' });
    // @ts-expect-error failNext takes a status number or 'network'
    fake.failNext(1, 'boom');
  });

  it('types the records by kind', () => {
    expectTypeOf(fake.getRecord('order', 'o')).toEqualTypeOf<Order | undefined>();
    expectTypeOf(fake.setRecord('withdrawal', { externalId: 'w', status: 'Completed' })).toEqualTypeOf<Withdrawal>();
    fake.updateRecord('order', 'o', { settlement: { status: 'Settled' } });
    // @ts-expect-error a withdrawal needs a status
    fake.setRecord('withdrawal', { externalId: 'w' });
    // @ts-expect-error a withdrawal's patch is a withdrawal's fields
    fake.updateRecord('withdrawal', 'w', { status: 5 });
    // @ts-expect-error not a kind of the table
    fake.settle('payout', 'p');
    const steps: TimelineStep[] = [
      { atMs: 0, kind: 'order', id: 'o', patch: { settlement: { status: 'Settled' } } },
      { atMs: 0, order: 'o', patch: { currency: 'BRZ' } },
      { atMs: 0, withdrawal: 'w', patch: { status: 'Completed' } },
    ];
    playTimeline(fake, steps);
    // @ts-expect-error an order step takes an order's patch
    playTimeline(fake, [{ atMs: 0, kind: 'order', id: 'o', patch: { settlement: 'x' } }]);
    // a 1.1 target with only the per-kind updates still type-checks
    playTimeline({ updateOrder: () => {}, updateWithdrawal: () => {} }, steps);
    expectTypeOf<TimelineRecordStep['kind']>().toEqualTypeOf<StatusKind>();
  });

  it('types the provider helpers', () => {
    expectTypeOf(deliverEvent('http://127.0.0.1:1', { eventId: 'e', type: 't' }, { secret: 's' })).toEqualTypeOf<Promise<DeliveryReport>>();
    expectTypeOf(signEvent('{}', 's')).toEqualTypeOf<Promise<SignedEvent>>();
    // @ts-expect-error the secret is required
    void deliverEvent('http://127.0.0.1:1', { eventId: 'e', type: 't' }, {});
  });
});

describe('partner routes', () => {
  it('types the path parameters from the template', () => {
    const fake = createFakeCheckout();
    fake.route('POST', '/orders/:orderId/items/:itemId', ({ params, body, partner }) => {
      expectTypeOf(params).toEqualTypeOf<Readonly<{ orderId: string; itemId: string }>>();
      expectTypeOf(body).toBeUnknown();
      expectTypeOf(partner.partnerId).toBeString();
      return { status: 201, body: { ok: true } };
    });
    const route = defineFakeRoute('post', '/checkouts/:id', ({ params }) => ({ body: params.id }));
    expectTypeOf(route).toExtend<FakeRoute>();
    createFakeCheckout({ routes: [route, { method: 'GET', path: '/x', handler: ({ params }) => ({ body: params['y'] }) }] });
    // @ts-expect-error -- not a parameter of this template
    fake.route('GET', '/orders/:orderId', ({ params }) => ({ body: params.id }));
    // @ts-expect-error -- a handler returns { status?, body?, headers? }
    fake.route('GET', '/orders/:orderId', () => ({ json: {} }));
  });
});
