// What both entry points (Web Crypto and node:crypto) export unchanged: nothing here computes an HMAC.
export { LeaseLostError, WebhookPayloadError } from './errors.js';
export { isEventType, parseEvent } from './event.js';
export type {
  EventOfType,
  OfType,
  KnownWebhookEvent,
  OtcTradeCancelledEvent,
  OtcTradeSettledEvent,
  PixDepositEvent,
  PixWithdrawalEvent,
  WebhookEvent,
  WebhookEventBase,
} from './event.js';
export type { CreateWebhookHandler, DrainedEvent, DrainOptions, DrainReport, HandleOptions, WebhookHandler } from './handler.js';
export type { WebhookLogEntry, WebhookLogger } from './logger.js';
export { MemoryEventStore } from './memory-store.js';
export { tagValue } from './tags.js';
export type { MemoryEventStoreOptions } from './memory-store.js';
export type { FastifyReplyLike, FastifyRequestLike } from './fastify-adapter.js';
export type { KoaContextLike } from './koa-adapter.js';
export type { KeptBody, NodeRequestLike, NodeResponseLike, RequestEndState } from './node-adapter.js';
export type {
  ConfirmOptions,
  ExternalIdResolver,
  OnEvent,
  TransactionalWebhookContext,
  WebhookClient,
  WebhookContext,
  WebhookHandlerOptions,
} from './options.js';
export type { WebhookOutcome } from './outcome.js';
export type {
  SignatureScheme,
  SignatureSchemeInput,
  SignPayload,
  VerifySignature,
  VerifySignatureInput,
  WebhookSecret,
} from './signature.js';
export type { PayloadInput } from './bytes.js';
export type { ClaimedLease, ClaimResult, EventStore } from './store.js';
export type { TransactionalEventStore, TransactResult } from './transactional.js';
export type { WebhookTracker } from './tracker-intake.js';
