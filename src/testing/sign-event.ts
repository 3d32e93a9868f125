import { typeName } from '../internal/type-name.js';
import { signatureHeaderName } from '../internal/arguments.js';
import { signPayload } from '../webhooks/index.js';

/** A payment-provider event: `eventId`, `type`, and any other fields. */
export interface ProviderEvent {
  /** Unique per event; redeliveries repeat it. */
  eventId: string;
  /** The event type, e.g. `otc.trade.settled`. */
  type: string;
  [field: string]: unknown;
}

/** A signed delivery: the exact body bytes and the signature header over them. */
export interface SignedEvent {
  /** The raw body (JSON text) that was signed; send exactly this. */
  readonly body: string;
  /** The signature header's value: `sha256=` and the lowercase hex HMAC-SHA256 of `body`. */
  readonly signature: string;
  /** `content-type` and the signature header, ready for fetch. */
  readonly headers: Readonly<Record<string, string>>;
}

/** An event with a fresh random `eventId` (`evt_…`) and the given `type` and fields. */
export function createEvent(type: string, fields: Record<string, unknown> = {}): ProviderEvent {
  if (typeof type !== 'string' || type === '') throw new TypeError(`createEvent: type must be a non-empty string, got ${typeName(type)}`);
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    throw new TypeError(`createEvent: fields must be an object, got ${typeName(fields)}`);
  }
  return { eventId: `evt_${crypto.randomUUID().replaceAll('-', '')}`, ...fields, type };
}

/** Signs an event as the payment provider does; a string is signed as is, an object as `JSON.stringify` gives it. */
export async function signEvent(
  event: ProviderEvent | string,
  secret: string,
  options: { signatureHeader?: string | undefined } = {},
): Promise<SignedEvent> {
  const body = eventBody(event);
  if (typeof secret !== 'string' || secret.trim() === '')
    throw new TypeError('signEvent: secret must be a non-empty string, not whitespace only');
  const header = signatureHeaderName(options.signatureHeader);
  const signature = await signPayload(body, secret);
  return { body, signature, headers: { 'content-type': 'application/json', [header]: signature } };
}

export function eventBody(event: ProviderEvent | string): string {
  if (typeof event === 'string') return event;
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new TypeError(`the event must be an object or a raw JSON string, got ${typeName(event)}`);
  }
  return JSON.stringify(event);
}
