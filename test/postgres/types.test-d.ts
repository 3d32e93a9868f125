import { expectTypeOf, test } from 'vitest';
import type pg from 'pg';
import type postgres from 'postgres';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import type { EventStore } from 'checkout-partner-sdk/stores';
import { createWebhookHandler, MemoryEventStore, type WebhookContext } from 'checkout-partner-sdk/webhooks';

declare const pool: pg.Pool;
declare const sql: postgres.Sql;
declare const client: CheckoutClient;

test('a transactional pg store hands onEvent the PoolClient', () => {
  createWebhookHandler({
    secret: 's',
    client,
    store: new PostgresEventStore({ pool, transactional: true }),
    onEvent: ({ transaction, event }) => {
      expectTypeOf(transaction).toEqualTypeOf<pg.PoolClient>();
      expectTypeOf(event.eventId).toBeString();
    },
  });
});

test('a postgres.js sql is refused in transactional mode (it cannot be made safe there), accepted in plain mode', () => {
  // @ts-expect-error transactional mode needs a pg Pool
  new PostgresEventStore({ pool: sql, transactional: true });
  expectTypeOf(new PostgresEventStore({ pool: sql }).transactional).toEqualTypeOf<false>();
});

test('a plain store (PostgreSQL or memory) hands onEvent no transaction', () => {
  createWebhookHandler({
    secret: 's',
    client,
    store: new PostgresEventStore({ pool }),
    onEvent: (context) => {
      expectTypeOf(context).toEqualTypeOf<WebhookContext>();
      // no transaction without a transactional store
      expectTypeOf(context).not.toHaveProperty('transaction');
    },
  });
  createWebhookHandler({
    secret: 's',
    client,
    store: new MemoryEventStore(),
    onEvent: (context) => {
      expectTypeOf(context).toEqualTypeOf<WebhookContext>();
    },
  });
  createWebhookHandler({
    secret: 's',
    client,
    onEvent: (context) => {
      expectTypeOf(context).toEqualTypeOf<WebhookContext>();
    },
  });
});

test('PostgresEventStore has every optional EventStore member: renew, leaseLeftMs, claim with { owner }', () => {
  expectTypeOf<PostgresEventStore>().toExtend<Required<EventStore>>();
});
