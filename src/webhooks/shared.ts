// What both entry points (Web Crypto and node:crypto) export unchanged: nothing here computes an HMAC.
export { LeaseLostError } from '../stores/errors.js';
export { WebhookPayloadError } from './errors.js';
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
export type { CreateWebhookHandler, WebhookHandler } from './types.js';
export type { HandleOptions } from './engine/lifecycle.js';
export { MemoryEventStore } from '../stores/memory-event-store.js';
export { tagValue } from './tags.js';
export type { MemoryEventStoreOptions } from '../stores/memory-event-store.js';
export type { FastifyReplyLike, FastifyRequestLike } from './adapters/fastify.js';
export type { KoaContextLike } from './adapters/koa.js';
export type { KeptBody, NodeRequestLike, NodeResponseLike, RequestEndState } from './adapters/node.js';
export type {
  ConfirmOptions,
  ExternalIdResolver,
  OnEvent,
  TransactionalWebhookContext,
  WebhookContext,
  WebhookHandlerOptions,
} from './engine/options.js';
export type { WebhookOutcome } from './engine/outcome.js';
export type {
  SignatureScheme,
  SignatureSchemeInput,
  SignPayload,
  VerifySignature,
  VerifySignatureInput,
  WebhookSecret,
} from './signature/signature.js';
export type { PayloadInput } from './signature/bytes.js';
export type { MeterProviderLike, TelemetryOptions, TracerProviderLike } from '../telemetry/options.js';
export type { ClaimedLease, ClaimResult, EventStore, TransactionalEventStore, TransactResult } from '../stores/event-store.js';
export type { WebhookTracker } from './engine/options.js';
