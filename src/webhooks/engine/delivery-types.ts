// What passes between the engine and the adapters, types only: a delivery in, an answer out.
import type { ClaimAnswer } from '../../telemetry/webhook-delivery.js';
import type { BodyResult } from './body.js';
import type { WebhookOutcome } from './outcome.js';
import type { CallbackHold } from '../../handling.js';

/** One delivery as an adapter hands it over: its headers and a way to read its body within a limit. */
export interface DeliveryInput {
  /** The request method as the adapter saw it (`undefined` when the framework does not say). */
  method: string | undefined;
  headers: Headers;
  /**
   * The raw body, or `TOO_LARGE` past `limit`. When `signal` aborts (the response deadline, or
   * `drain()`) while the body is still arriving, stop reading and reject with `signal.reason`.
   */
  readBody(limit: number, signal?: AbortSignal): Promise<BodyResult>;
}

/** How a delivery ended, and what is known of it. */
export interface DeliveryResult {
  outcome: WebhookOutcome;
  eventId?: string;
  type?: string;
  confirmed?: boolean;
  /** With a tracker: whether it was asked to read the event's record (`false`: no resolver found it). */
  nudged?: boolean;
  error?: unknown;
  /** With `in-flight`: the seconds the other claim still holds (the 409's `Retry-After`). */
  retryAfterSeconds?: number;
  /** A plain-text body other than the outcome's usual one. */
  message?: string;
}

/** Filled in as the delivery goes, so a timed-out delivery can still be logged with its event. */
export interface DeliveryProgress {
  eventId?: string;
  type?: string;
  /** What the event store answered the claim (for the delivery's span). */
  claim?: ClaimAnswer;
  /** The delivery's hold on its work, once its event is known: `drain()` gives it up. */
  hold?: CallbackHold;
}

/** What the handler answers, before it becomes a `Response` or is written to a Node response. */
export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
