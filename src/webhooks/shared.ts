// What both entry points (Web Crypto and node:crypto) export unchanged: nothing here computes an HMAC.
export { WebhookPayloadError } from './errors.js';
export { isEventType, parseEvent } from './event.js';
export type * from '../webhook-event.js';
export type { WebhookOutcome } from './engine/outcome.js';
export type { HandleOptions } from './engine/lifecycle.js';
export type { FastifyReplyLike, FastifyRequestLike } from './adapters/fastify.js';
export type { KoaContextLike } from './adapters/koa.js';
export type { KeptBody, NodeRequestLike, NodeResponseLike, RequestEndState } from './adapters/node.js';
export type { PayloadInput } from './signature/bytes.js';
export type { MemoryEventStoreOptions } from '../stores/memory-event-store.js';
export type { WebhookHandler } from './types.js';
export type { WebhookHandlerHealth } from './engine/lifecycle.js';
export { MemoryEventStore } from '../stores/memory-event-store.js';
export { tagValue } from './tags.js';
export type {
  ConfirmOptions,
  ExternalIdResolver,
  ExternalIdResolvers,
  KindResolverOptions,
  OnEvent,
  TransactionalWebhookContext,
  WebhookContext,
  WebhookContextRecords,
  WebhookHandlerOptions,
  WebhookTracker,
} from './engine/options.js';
export type { SignatureScheme, SignatureSchemeInput, VerifySignatureInput, WebhookSecret } from './signature/signature.js';
export type { EventStore } from '../stores/event-store.js';
export type { KindRecord, RecordOf, ResolverName, StatusKind } from '../kinds.js';
export type { WebhookSecretSource } from './engine/secret-source.js';
