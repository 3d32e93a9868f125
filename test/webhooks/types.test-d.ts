import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CheckoutClient, DrainReport, LogEntry, Order, Withdrawal } from 'checkout-partner-sdk';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Koa from 'koa';
import type { RawBodyRequest } from '@nestjs/common';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import {
  createWebhookHandler,
  isEventType,
  MemoryEventStore,
  parseEvent,
  signPayload,
  tagValue,
  verifySignature,
  type EventStore,
  type EventOfType,
  type WebhookContext,
  type WebhookEvent,
  type WebhookHandler,
} from 'checkout-partner-sdk/webhooks';
import type { ClaimedLease, ClaimOptions, ClaimResult, LeaseLostError } from 'checkout-partner-sdk/stores';
import { describe, expectTypeOf, it } from 'vitest';
import * as node from '../../src/webhooks/index.node.js';

type DrainOptions = NonNullable<Parameters<WebhookHandler['drain']>[0]>;
type InHandWork = DrainReport['inHand'][number];
type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;
type HandleOptions = NonNullable<Parameters<WebhookHandler['handle']>[1]>;
type FastifyRequestLike = Parameters<WebhookHandler['fastify']>[0];
type NodeRequestLike = Parameters<WebhookHandler['node']>[0];
type OtcTradeSettledEvent = EventOfType<'otc.trade.settled'>;
type PixDepositEvent = EventOfType<`pix.deposit.${string}`>;
type PixWithdrawalEvent = EventOfType<`pix.withdrawal.${string}`>;

describe('webhook types', () => {
  it('types the public functions', () => {
    expectTypeOf(verifySignature).returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(signPayload).returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf(parseEvent).returns.toEqualTypeOf<WebhookEvent>();
    expectTypeOf(createWebhookHandler).returns.toEqualTypeOf<WebhookHandler>();
    expectTypeOf(node.createWebhookHandler).toEqualTypeOf(createWebhookHandler);
    expectTypeOf(node.verifySignature).toEqualTypeOf(verifySignature);
    expectTypeOf<WebhookHandler['handle']>().parameter(0).toEqualTypeOf<Request>();
    expectTypeOf<WebhookHandler['handle']>().returns.toEqualTypeOf<Promise<Response>>();
    expectTypeOf<WebhookHandler['drain']>().toEqualTypeOf<(options?: DrainOptions) => Promise<DrainReport>>();
    expectTypeOf<DrainReport['drained']>().toEqualTypeOf<boolean>();
    expectTypeOf<DrainReport['inHand'][number]>().toEqualTypeOf<InHandWork>();
    expectTypeOf<HandleOptions['waitUntil']>().toEqualTypeOf<((promise: Promise<unknown>) => void) | undefined>();
    expectTypeOf<MemoryEventStore>().toExtend<EventStore>();
    expectTypeOf<ReturnType<EventStore['claim']>>().toEqualTypeOf<Promise<ClaimResult>>();
    expectTypeOf<MemoryEventStore['claim']>().returns.resolves.toEqualTypeOf<ClaimedLease | 'in-flight' | 'done'>();
    expectTypeOf<EventStore['complete']>().parameters.toEqualTypeOf<[eventId: string, lease?: unknown]>();
    expectTypeOf<EventStore['release']>().parameters.toEqualTypeOf<[eventId: string, lease?: unknown]>();
    // API.md's lease-less shape is an EventStore: a plain "claimed", complete(eventId), release(eventId)
    expectTypeOf<{
      claim(eventId: string, leaseMs: number): Promise<'claimed' | 'in-flight' | 'done'>;
      complete(eventId: string): Promise<void>;
      release(eventId: string): Promise<void>;
    }>().toExtend<EventStore>();
    // a claim is still one of the contract's answers
    expectTypeOf<{
      claim(eventId: string, leaseMs: number): Promise<'taken' | 'done'>;
      complete(eventId: string): Promise<void>;
      release(eventId: string): Promise<void>;
    }>().not.toExtend<EventStore>();
    // renew, leaseLeftMs and claim's { owner } are optional: the built-in stores have them all
    expectTypeOf<MemoryEventStore>().toExtend<Required<EventStore>>();
    expectTypeOf<EventStore['claim']>().parameter(2).toEqualTypeOf<ClaimOptions | undefined>();
    expectTypeOf<ClaimOptions['owner']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<EventStore['renew']>>().returns.resolves.toEqualTypeOf<boolean>();
    expectTypeOf<NonNullable<EventStore['leaseLeftMs']>>().returns.resolves.toEqualTypeOf<number | undefined>();
    expectTypeOf<Parameters<typeof createWebhookHandler>[0]['owner']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<LeaseLostError['name']>().toEqualTypeOf<'LeaseLostError'>();
  });

  it('narrows known events with isEventType and keeps unknown ones', () => {
    const event = parseEvent('{}');
    // the provider may leave tradeId out (or send null): parseEvent accepts that, so the type says so
    if (isEventType(event, 'otc.trade.settled')) expectTypeOf(event.tradeId).toEqualTypeOf<string | null | undefined>();
    if (isEventType(event, 'otc.trade.cancelled')) expectTypeOf(event.tradeId).toEqualTypeOf<string | null | undefined>();
    expectTypeOf<{ eventId: 'e'; type: 'otc.trade.settled' }>().toExtend<OtcTradeSettledEvent>();
    expectTypeOf<{ eventId: 'e'; type: 'otc.trade.settled'; tradeId: null }>().toExtend<OtcTradeSettledEvent>();
    expectTypeOf<{ eventId: 'e'; type: 'otc.trade.settled'; tradeId: 5 }>().not.toExtend<OtcTradeSettledEvent>();
    if (isEventType(event, 'pix.withdrawal.settled')) expectTypeOf(event).toExtend<PixWithdrawalEvent>();
    if (isEventType(event, 'pix.deposit.confirmed')) {
      expectTypeOf(event.endUserId).toEqualTypeOf<string | null | undefined>();
      expectTypeOf(event.tags).toEqualTypeOf<readonly string[] | null | undefined>();
    }
    expectTypeOf(tagValue).toEqualTypeOf<(event: WebhookEvent, key: string) => string | undefined>();
    expectTypeOf<{ eventId: 'e'; type: 'pix.deposit.x'; tags: [1] }>().not.toExtend<PixDepositEvent>();
    expectTypeOf<{ eventId: 'e'; type: 'brand.new' }>().toExtend<WebhookEvent>();
    expectTypeOf<OtcTradeSettledEvent['type']>().toEqualTypeOf<'otc.trade.settled'>();
    expectTypeOf(event.type).toEqualTypeOf<string>();
  });

  it('takes a CheckoutClient and gives onEvent the records', () => {
    expectTypeOf<WebhookContext['order']>().toEqualTypeOf<Order | undefined>();
    expectTypeOf<WebhookContext['withdrawal']>().toEqualTypeOf<Withdrawal | undefined>();
    expectTypeOf<CheckoutClient>().toExtend<Parameters<typeof createWebhookHandler>[0]['client']>();
    expectTypeOf<WebhookLogEntry['outcome']>().toExtend<string>();
  });

  it('accepts the real request objects of each framework its adapters serve', () => {
    const handler = createWebhookHandler({ secret: 's', client: {}, onEvent: () => undefined });
    expectTypeOf(handler.fastify).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(handler.koa).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(handler.fastify).toBeCallableWith({} as FastifyRequest, {} as FastifyReply);
    expectTypeOf(handler.koa).toBeCallableWith({} as Koa.Context);
    expectTypeOf(handler.koa).toBeCallableWith({} as Koa.ParameterizedContext<{ user: string }, { custom: true }>);
    // without @koa/bodyparser, Koa's request has neither rawBody nor body (this program loads its augmentation)
    expectTypeOf(handler.koa).toBeCallableWith(
      {} as Pick<Koa.Context, 'req' | 'res' | 'respond'> & { request: Omit<Koa.Request, 'rawBody' | 'body'> },
    );
    expectTypeOf(handler.node).toBeCallableWith({} as IncomingMessage, {} as ServerResponse);
    expectTypeOf(handler.node).toBeCallableWith({} as ExpressRequest, {} as ExpressResponse);
    expectTypeOf(handler.node).toBeCallableWith({} as RawBodyRequest<ExpressRequest>, {} as ExpressResponse);
    // a Fastify request is not a Node request: node() would throw, and the types say so first
    expectTypeOf<FastifyRequest>().not.toExtend<NodeRequestLike>();
    expectTypeOf<IncomingMessage>().not.toExtend<FastifyRequestLike>();
    expectTypeOf<FastifyRequest<{ Body: Buffer }>>().toExtend<FastifyRequestLike>();
  });
});
