import { CheckoutError } from '../../errors.js';
import { BodyAbortedError, TOO_LARGE, type BodyResult } from './body.js';
import { confirmEvent } from './confirm.js';
import { WebhookPayloadError } from '../errors.js';
import { RawBodyUnavailableError } from './raw-body-error.js';
import { parseEvent, type WebhookEvent } from '../event.js';
import type { DeliveryInput, DeliveryProgress, DeliveryResult } from './delivery-types.js';
import type { ConfirmedContext } from './confirm.js';
import type { ResolvedOptions } from './resolve-options.js';
import type { CheckedClaim } from '../../stores/claim.js';
import { claimEvent, renewWhileInHand, retryAfterSeconds, type ClaimRenewal } from './claims.js';
import { runTransactional, transactionalStore } from './transactional.js';
import { nudgeTracker, runTrackerDelivery } from './tracker-intake.js';
import { boundedStoreCall, withinLease } from './lease-deadline.js';
import { quote } from '../../internal/quote.js';
import { sleep } from '../../internal/abort.js';
import { CallbackHold, withSignal } from '../../handling.js';
import { timingSafeEqual, type Signatures } from '../signature/signature.js';

export class BodyDeadlineError extends CheckoutError {
  override readonly name = 'BodyDeadlineError' as const;
  constructor(responseTimeoutMs: number) {
    super(
      `The request body had not fully arrived when the response was due (responseTimeoutMs, ${responseTimeoutMs} ms); ` +
        'its read was stopped and the delivery answered 503, so the provider redelivers it',
    );
  }
}

export class DrainingAbort extends CheckoutError {
  override readonly name = 'DrainingAbort' as const;
  constructor() {
    super('The handler is draining: a delivery whose body was still arriving is answered 503 and redelivered later');
  }
}

/**
 * Refused unread: a method other than POST (405; `undefined` passes) and a compressed body (415), as which
 * bytes a compressing sender signs is not fixed, and decoding could pass `maxBodyBytes` before any check.
 */
export function refusal(input: Pick<DeliveryInput, 'method' | 'headers'>): DeliveryResult | undefined {
  if (input.method !== undefined && input.method !== 'POST') return { outcome: 'method-not-allowed' };
  const encoding = input.headers.get('content-encoding');
  if (encoding?.split(',').some((coding) => !/^\s*(identity)?\s*$/i.test(coding))) {
    return { outcome: 'unsupported-encoding' };
  }
  return undefined;
}

/** One delivery's steps in the contract's order: size, signature, event, claim, confirm, `onEvent`, complete or release. */
export async function runDelivery(
  config: ResolvedOptions,
  signatures: Signatures,
  input: DeliveryInput,
  progress: DeliveryProgress,
  background: (work: Promise<void>) => void,
  bodySignal?: AbortSignal,
): Promise<DeliveryResult> {
  const read = await readBody(config, input, bodySignal);
  if ('outcome' in read) return read;
  const unverified = await checkSignature(config, signatures, input, read.body);
  if (unverified !== undefined) return unverified;
  const parsed = parseBody(read.body);
  if ('outcome' in parsed) return parsed;
  const { event } = parsed;
  const known = { eventId: event.eventId, type: event.type };
  progress.eventId = known.eventId;
  progress.type = known.type;
  const hold = new CallbackHold('onEvent', `event ${quote(event.eventId)}`);
  progress.hold = hold;
  if (config.trackerOnly) return runTrackerDelivery(config, event, hold);
  if (config.tracker === undefined) return claimAndRun(config, event, known, progress, background, hold);
  const nudged = await nudgeBeforeClaim(config, event, known, hold);
  if (typeof nudged !== 'boolean') return nudged;
  return { ...(await claimAndRun(config, event, known, progress, background, hold)), nudged };
}

async function readBody(
  config: ResolvedOptions,
  input: DeliveryInput,
  bodySignal: AbortSignal | undefined,
): Promise<{ body: Uint8Array } | DeliveryResult> {
  let body: BodyResult;
  try {
    body = await input.readBody(config.maxBodyBytes, bodySignal);
  } catch (error) {
    if (error instanceof RawBodyUnavailableError) return { outcome: 'misconfigured', error, message: error.message };
    // the sender's doing: anyone can cause it, so it is no error
    if (error instanceof BodyAbortedError) return { outcome: 'aborted', error };
    if (bodySignal?.aborted === true && error === bodySignal.reason) {
      return error instanceof DrainingAbort ? { outcome: 'draining' } : { outcome: 'timeout', error };
    }
    throw error;
  }
  if (body === TOO_LARGE) return { outcome: 'too-large' };
  return { body };
}

async function checkSignature(
  config: ResolvedOptions,
  signatures: Signatures,
  input: DeliveryInput,
  body: Uint8Array,
): Promise<DeliveryResult | undefined> {
  const signature = input.headers.get(config.signatureHeader);
  let secrets: readonly string[];
  try {
    const read = config.secrets();
    secrets = Array.isArray(read) ? read : await read;
  } catch (error) {
    // the partner's secret source failed, not the sender: 503, so the provider redelivers
    return { outcome: 'secret-unavailable', error };
  }
  let verified: boolean;
  try {
    verified =
      config.scheme === undefined
        ? await signatures.verifyBytes(body, signature, secrets)
        : await config.scheme({
            payload: body,
            signature,
            headers: input.headers,
            secrets,
            hmacSha256Hex: signatures.hmacSha256Hex.bind(signatures),
            timingSafeEqual,
          });
  } catch (error) {
    return { outcome: 'bad-signature', error };
  }
  if (!verified) return { outcome: 'bad-signature' };
  return undefined;
}

function parseBody(body: Uint8Array): { event: WebhookEvent } | DeliveryResult {
  try {
    return { event: parseEvent(body) };
  } catch (error) {
    if (error instanceof WebhookPayloadError) return { outcome: 'invalid', error };
    throw error;
  }
}

/** Nothing is claimed yet, but a resolver or nudge that never answers must not hold the delivery (and drain) forever. */
async function nudgeBeforeClaim(
  config: ResolvedOptions,
  event: WebhookEvent,
  known: { eventId: string; type: string },
  hold: CallbackHold,
): Promise<DeliveryResult | boolean> {
  try {
    return await withinLease(
      event.eventId,
      config.leaseMs,
      performance.now(),
      'tracker nudge',
      ({ signal }) => nudgeTracker(config, event, signal),
      hold.signal,
    );
  } catch (error) {
    return { ...known, outcome: 'store-unavailable', error };
  }
}

async function claimAndRun(
  config: ResolvedOptions,
  event: WebhookEvent,
  known: { eventId: string; type: string },
  progress: DeliveryProgress,
  background: (work: Promise<void>) => void,
  hold: CallbackHold,
): Promise<DeliveryResult> {
  const transactional = transactionalStore(config.store);
  if (transactional !== undefined) {
    return runTransactional(config, transactional, known, hold, (claimedAt) => confirmWithinLease(event, config, claimedAt, hold));
  }

  let claim: CheckedClaim;
  const claimedAt = performance.now();
  try {
    claim = await claimEvent(config, event.eventId);
  } catch (error) {
    progress.claim = 'failed';
    return { ...known, outcome: 'store-unavailable', error };
  }
  if (claim === 'done') {
    progress.claim = claim;
    return { ...known, outcome: 'duplicate' };
  }
  if (claim === 'in-flight') {
    progress.claim = claim;
    return { ...known, outcome: 'in-flight', retryAfterSeconds: await retryAfterSeconds(config, event.eventId) };
  }
  progress.claim = 'claimed';
  const { lease } = claim;
  const renewal = renewWhileInHand(config, event.eventId, lease, claimedAt, hold);
  let settling: Promise<void> | undefined;
  try {
    const result = await runClaimed(config, event, known, lease, claimedAt, renewal, hold);
    settling = result.settling;
    if (settling !== undefined) background(settling);
    return result.result;
  } finally {
    renewal.stop();
    // a claim given up while onEvent may still run stays in hand until it lapses
    if (hold.signal.aborted) config.claimsInHand.keepUntil(event.eventId, renewal.heldUntil);
    else if (settling === undefined) config.claimsInHand.drop(event.eventId);
    else void settling.catch(() => undefined).finally(() => config.claimsInHand.drop(event.eventId));
  }
}

/** `settling`: the background retries of a failed `complete`. Work given up fails at once and leaves the claim to lapse. */
async function runClaimed(
  config: ResolvedOptions,
  event: WebhookEvent,
  known: { eventId: string; type: string },
  lease: unknown,
  claimedAt: number,
  renewal: ClaimRenewal,
  hold: CallbackHold,
): Promise<{ result: DeliveryResult; settling?: Promise<void> }> {
  let confirmed: boolean;
  try {
    const context = await confirmWithinLease(event, config, claimedAt, hold);
    confirmed = context.confirmed;
    // the lease deadline holds for the status reads only: onEvent is bounded by maxHandlingMs
    await hold.run(() => config.onEvent(withSignal(context, hold.signal)), config.maxHandlingMs);
  } catch (error) {
    renewal.stop();
    // the callback may still run: a release would let a redelivery run the event beside it
    if (hold.signal.aborted) return { result: { ...known, outcome: 'failed', error: hold.signal.reason } };
    try {
      await boundedStoreCall('release', event.eventId, config.leaseMs, () => config.store.release(event.eventId, lease));
    } catch (releaseError) {
      return {
        result: {
          ...known,
          outcome: 'failed',
          error: new AggregateError([error, releaseError], 'The event failed and its claim could not be released'),
        },
      };
    }
    return { result: { ...known, outcome: 'failed', error } };
  }
  renewal.stop();
  try {
    await boundedStoreCall('complete', event.eventId, config.leaseMs, () => config.store.complete(event.eventId, lease));
  } catch (error) {
    // onEvent did its work, so 200 (a non-2xx would run it again); the claim holds while complete is retried
    return {
      result: { ...known, outcome: 'handled', confirmed, error },
      settling: completeWhileLeased(config, event.eventId, lease, renewal.heldUntil, hold.signal),
    };
  }
  return { result: { ...known, outcome: 'handled', confirmed } };
}

/** Past the lease a redelivery can claim the event, so a read still running then is cut off: `onEvent` never runs twice. */
function confirmWithinLease(
  event: WebhookEvent,
  config: ResolvedOptions,
  claimedAt: number,
  hold: CallbackHold,
): Promise<ConfirmedContext> {
  return withinLease(
    event.eventId,
    config.leaseMs,
    claimedAt,
    'status read',
    (deadline) => confirmEvent(event, config, deadline),
    hold.signal,
  );
}

const COMPLETE_RETRY_FIRST_MS = 25;
const COMPLETE_RETRY_MAX_MS = 2_000;

async function completeWhileLeased(
  config: ResolvedOptions,
  eventId: string,
  lease: unknown,
  heldUntil: number,
  stop: AbortSignal,
): Promise<void> {
  let delay = COMPLETE_RETRY_FIRST_MS;
  // bounded: the delays double up to a cap and stop at the lease's end
  while (performance.now() + delay < heldUntil) {
    await sleep(delay, stop);
    try {
      await boundedStoreCall('complete', eventId, config.leaseMs, () => config.store.complete(eventId, lease));
      return;
    } catch {
      delay = Math.min(delay * 2, COMPLETE_RETRY_MAX_MS);
    }
  }
  throw new CompleteFailedError(eventId);
}

class CompleteFailedError extends CheckoutError {
  override readonly name = 'CompleteFailedError' as const;
  constructor(eventId: string) {
    super(`The event ${quote(eventId)} was handled but could not be marked done before its lease passed; a redelivery may run it again`);
  }
}
