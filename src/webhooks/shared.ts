// What both entry points (Web Crypto and node:crypto) export unchanged: nothing here computes an HMAC.
export { WebhookPayloadError } from './errors.js';
export { isEventType, parseEvent } from './event.js';
export type { EventOfType, KnownWebhookEvent, WebhookEvent } from './event.js';
export type { WebhookHandler } from './types.js';
export type { WebhookHandlerHealth } from './engine/lifecycle.js';
export { MemoryEventStore } from '../stores/memory-event-store.js';
export { tagValue } from './tags.js';
export type { TransactionalWebhookContext, WebhookContext, WebhookHandlerOptions } from './engine/options.js';
export type { SignatureScheme, WebhookSecret } from './signature/signature.js';
export type { EventStore } from '../stores/event-store.js';
export type { WebhookSecretSource } from './engine/secret-source.js';
