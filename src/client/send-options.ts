// What the transport is built with, what a call asks of it and what it did: types only.
import type { LoadControl } from './load/load-control.js';
import type { LogWriter } from './log.js';
import type { ResponseSchema } from '../schemas.js';

export interface TransportOptions {
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
  attempts: number;
  response: Response | undefined;
  queuedMs: number;
  /** The token a business endpoint answered 401 to. */
  refusedToken?: string | undefined;
}

export interface SendOptions<T> {
  method: string;
  /** Below the API base, encoded, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  /** Whether the request may be retried: a GET, the token exchange, one with an idempotency key. */
  retry: boolean;
  maxRetries?: number | undefined;
  schema: ResponseSchema<T> | undefined;
  json?: unknown;
  searchParams?: Record<string, string | number | boolean> | URLSearchParams | undefined;
  /** The `externalId` asked for: a record carrying another is refused, not retried (a retry would hide it). */
  externalId?: string | undefined;
  signal?: AbortSignal | undefined;
  /** `performance.now()` at which the call times out. */
  deadline?: number | undefined;
  /** The Bearer token of a business call; none for the exchange. */
  authorize?: ((signal: AbortSignal | undefined) => Promise<string>) | undefined;
  /** The token `authorize` gives at once, when it is cached and usable. */
  token?: (() => string | undefined) | undefined;
  /** Adds the trace context to the headers (OpenTelemetry). */
  inject?: ((headers: Record<string, string>) => void) | undefined;
  /** For messages: what `deadline` came from. */
  totalTimeoutMs?: number | undefined;
  callTimeoutMs?: number | undefined;
  trace: CallTrace;
  /** A credential the request does not carry but a service may quote (the partner secret): redacted too. */
  alsoRedact?: string | undefined;
}
