import type { ClaimAnswer } from '../../telemetry/webhook-delivery.js';
import type { BodyResult } from './body.js';
import type { WebhookOutcome } from './outcome.js';
import type { CallbackHold } from '../../handling.js';

export interface DeliveryInput {
  /** `undefined` when the framework does not say. */
  method: string | undefined;
  headers: Headers;
  /** The raw body, or `TOO_LARGE` past `limit`; rejects with `signal.reason` when `signal` aborts mid-body. */
  readBody(limit: number, signal?: AbortSignal): Promise<BodyResult>;
}

export interface DeliveryResult {
  outcome: WebhookOutcome;
  eventId?: string;
  type?: string;
  confirmed?: boolean;
  /** With a tracker: `false` when no resolver found the event's record. */
  nudged?: boolean;
  error?: unknown;
  retryAfterSeconds?: number;
  /** A plain-text body other than the outcome's usual one. */
  message?: string;
}

/** Filled in as the delivery goes, so a timed-out delivery can still be logged with its event. */
export interface DeliveryProgress {
  eventId?: string;
  type?: string;
  claim?: ClaimAnswer;
  hold?: CallbackHold;
}

export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
