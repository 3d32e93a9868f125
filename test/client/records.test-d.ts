import { describe, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  CheckoutClient,
  CheckoutError,
  ConnectionError,
  OrderSchema,
  QueueFullError,
  WaitTimeoutError,
  type Me,
  type Order,
  type TokenResponse,
  type Withdrawal,
} from 'checkout-partner-sdk';

describe('public types', () => {
  it('types the records', () => {
    expectTypeOf<Order['externalId']>().toEqualTypeOf<string>();
    expectTypeOf<Withdrawal['externalId']>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<Order['settlement']>['tradeId']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Me>().toExtend<Record<string, unknown>>();
    expectTypeOf<TokenResponse['expiresIn']>().toEqualTypeOf<number>();
  });

  it('accepts any string for states while the known ones autocomplete', () => {
    expectTypeOf<'Settled'>().toExtend<NonNullable<NonNullable<Order['settlement']>['status']>>();
    expectTypeOf<'SomethingNew'>().toExtend<NonNullable<NonNullable<Order['settlement']>['status']>>();
    expectTypeOf<'Completed'>().toExtend<Withdrawal['status']>();
    expectTypeOf<'BRZ'>().toExtend<NonNullable<Order['currency']>>();
    expectTypeOf<Withdrawal['status']>().toExtend<string>();
  });

  it('keeps unknown fields', () => {
    expectTypeOf<Order>().toHaveProperty('externalId');
    expectTypeOf<Order['anything']>().toEqualTypeOf<unknown>();
  });

  it('infers the schemas output', () => {
    expectTypeOf(OrderSchema.parse({})).toEqualTypeOf<Order>();
  });

  it('types the client methods', () => {
    const client = new CheckoutClient();
    expectTypeOf(client.getOrderByExternalId('o')).resolves.toEqualTypeOf<Order>();
    expectTypeOf(client.getWithdrawalByExternalId('w')).resolves.toEqualTypeOf<Withdrawal>();
    expectTypeOf(client.getMe()).resolves.toEqualTypeOf<Me>();
    expectTypeOf(client.getAccessToken()).resolves.toEqualTypeOf<string>();
    expectTypeOf(client.request('GET', '/x')).resolves.toEqualTypeOf<unknown>();
    expectTypeOf(client.waitForOrder('o', (o) => o.settlement?.status === 'Settled')).resolves.toEqualTypeOf<Order>();
    // @ts-expect-error: the id is a string
    void client.getOrderByExternalId(42);
  });

  it('types the error tree', () => {
    expectTypeOf<AuthenticationError>().toExtend<ApiError>();
    expectTypeOf<ApiError>().toExtend<CheckoutError>();
    expectTypeOf<WaitTimeoutError>().toExtend<CheckoutError>();
    expectTypeOf<AuthenticationError['name']>().toEqualTypeOf<'AuthenticationError'>();
    expectTypeOf<AuthenticationError['status']>().toEqualTypeOf<number>();
    expectTypeOf<ConnectionError['status']>().toEqualTypeOf<undefined>();
    expectTypeOf<QueueFullError>().toExtend<ApiError>();
    expectTypeOf<QueueFullError['name']>().toEqualTypeOf<'QueueFullError'>();
    expectTypeOf<QueueFullError['status']>().toEqualTypeOf<undefined>();
    expectTypeOf<QueueFullError['maxQueue']>().toEqualTypeOf<number>();
    expectTypeOf<ApiError['requestId']>().toEqualTypeOf<string | undefined>();
  });
});
