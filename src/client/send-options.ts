// What the transport is built with, what one call asks of it (SendOptions) and what it did (CallTrace): types only.
import type { LoadControl } from './load/load-control.js';
import type { LogWriter } from './log.js';
import type { ResponseSchema } from '../schemas.js';

export interface TransportOptions {
  /** The partner API base, e.g. `https://checkout.example.com/api/v1/partner-api`. */
  apiBase: string;
  timeoutMs: number;
  maxRetries: number;
  maxResponseBytes: number;
  fetch: typeof globalThis.fetch | undefined;
  log: LogWriter;
  load: LoadControl;
}

/** What a call did, filled in by every `Transport.send` it makes. */
export interface CallTrace {
  /** HTTP attempts made so far. */
  attempts: number;
  /** The last successful response, once there is one. */
  response: Response | undefined;
  /** Milliseconds the call's requests waited for their turn (rateLimit, a Retry-After pause). */
  queuedMs: number;
  /** The token a business endpoint answered 401 to: the client drops it, mints one and sends once more. */
  refusedToken?: string | undefined;
}

export interface SendOptions<T> {
  method: string;
  /** Path below the API base, already encoded, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  /** Retry on network errors, timeouts, 408, 429 and 5xx (GETs, the token exchange and requests with an idempotency key). */
  retry: boolean;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number | undefined;
  schema: ResponseSchema<T> | undefined;
  json?: unknown;
  searchParams?: Record<string, string | number | boolean> | URLSearchParams | undefined;
  /**
   * The `externalId` of the record asked for (the by-external-id reads): a valid record that carries
   * another one is refused with a `ResponseValidationError` naming both, and not retried (a caching
   * proxy or a service bug answering B's record for A would repeat it; a retry would hide it).
   */
  externalId?: string | undefined;
  /** The caller's signal. */
  signal?: AbortSignal | undefined;
  /** `performance.now()` at which the call times out: a `Retry-After` reaching past it fails at once. */
  deadline?: number | undefined;
  /** The Bearer token of a business call, bounded by the call's signal and deadline; none for the exchange. */
  authorize?: ((signal: AbortSignal | undefined) => Promise<string>) | undefined;
  /** Called as the request goes out, its token in hand: adds the trace context to its headers (OpenTelemetry). */
  inject?: ((headers: Record<string, string>) => void) | undefined;
  /** The client's `totalTimeoutMs`, the deadline of a call without its own `timeoutMs` (for messages). */
  totalTimeoutMs?: number | undefined;
  /** The call's own `timeoutMs` (that `deadline` comes from), for the message of a call that ran out of it in the queue. */
  callTimeoutMs?: number | undefined;
  /** Counts the call's attempts and keeps its response. */
  trace: CallTrace;
  /** Credentials this request does not carry but a service may still quote (the partner secret, on a business call): redacted from its errors too. */
  alsoRedact?: string | undefined;
}
