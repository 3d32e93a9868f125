import { timerMs } from '../../internal/arguments.js';
import { typeName } from '../../internal/type-name.js';
import { BodyDeadlineError, DrainingAbort, refusal, runDelivery } from './deliver.js';
import type { DeliveryInput, DeliveryProgress, DeliveryResult, PlainResponse } from './delivery-types.js';
import { logError } from './logger.js';
import type { WebhookLogEntry } from '../../logger.js';
import type { DrainOptions, DrainReport, InHandDelivery } from '../../drain.js';
import type { WebhookHandlerOptions } from './options.js';
import { resolveOptions } from './resolve-options.js';
import { OUTCOME_MESSAGE, OUTCOME_STATUS } from './outcome.js';
import type { Signatures } from '../signature/signature.js';
import { Telemetry } from '../../telemetry/telemetry.js';

// The engine of the webhook handler: deliveries in hand, the response deadline, logging, drain().
// It knows no framework: each adapter (../adapters/) turns its request into a DeliveryInput and
// writes the PlainResponse back, so adapters depend on the engine and never the reverse.

/**
 * The second argument of `handler.handle(request, options)`.
 *
 * @inline
 */
export interface HandleOptions {
  /**
   * Keeps the runtime alive for work that goes on after the response: a delivery answered 503 at
   * `responseTimeoutMs` whose work is still running, or the retries of a claim that could not be
   * marked done. On Cloudflare Workers (or another runtime that offers `waitUntil`) pass the request
   * context's `waitUntil`: without it the runtime may stop that work once the response is sent,
   * and the claim then holds until its lease passes. On Node, Bun and Deno servers it is not needed.
   * The promises it gets never reject.
   *
   * @example
   * // Cloudflare Workers with Hono
   * app.post('/webhooks', (c) => handler.handle(c.req.raw, { waitUntil: c.executionCtx.waitUntil.bind(c.executionCtx) }));
   * // plain Workers: export default { fetch: (request, env, ctx) => handler.handle(request, { waitUntil: ctx.waitUntil.bind(ctx) }) }
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

/** The handling every adapter shares: a delivery in, the answer to send out; and the shutdown. */
export interface WebhookEngine {
  /**
   * Handles one delivery as an adapter hands it over (its headers and a function that reads its
   * body) and resolves with the answer to send. Never rejects: an unexpected failure is answered 500.
   */
  deliver(input: DeliveryInput, waitUntil?: HandleOptions['waitUntil']): Promise<PlainResponse>;
  /** `handler.drain()`: stops taking deliveries and waits for those in hand (see `WebhookHandler.drain`). */
  drain(options?: DrainOptions): Promise<DrainReport>;
}

/** `createEngine(options)`: checks the options (a `TypeError` for a bad one) and starts an engine. */
export type CreateEngine = <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookEngine;

const TEXT = 'text/plain; charset=utf-8';

/** Given once at construction when neither resolver is set: no event can ever be confirmed. */
const NEVER_CONFIRMS = {
  warning: 'never-confirms',
  message:
    'createWebhookHandler has neither resolveOrderExternalId nor resolveWithdrawalExternalId, so no order or withdrawal ' +
    'is ever read and onEvent always gets confirmed: false. Pass resolveOrderExternalId (otc.trade.*, pix.deposit.*) ' +
    'and resolveWithdrawalExternalId (pix.withdrawal.*); logger: false silences this warning.',
} as const;

/** Builds `createEngine` over one entry point's signing functions. */
export function engineFactory(signatures: Signatures): CreateEngine {
  return function createEngine<Transaction = undefined>(options: WebhookHandlerOptions<Transaction>): WebhookEngine {
    const config = resolveOptions(options);
    const writeLog = config.logger;
    const telemetry = new Telemetry(config.telemetry);
    // after every check that can throw: a handler that is never made warns about nothing
    if (config.resolveOrderExternalId === undefined && config.resolveWithdrawalExternalId === undefined) {
      writeLog({ event: 'webhook.warning', ...NEVER_CONFIRMS });
    }
    /** Every delivery's work and background work still running, with what is known of its event. */
    const inHand = new Map<Promise<unknown>, DeliveryProgress>();
    /** One per delivery in progress: aborting it stops that delivery's body read, if still reading. */
    const bodyReads = new Set<AbortController>();
    let draining = false;

    const log = (result: DeliveryResult, started: number, late?: true): void => {
      const entry: WebhookLogEntry = {
        event: 'webhook.delivery',
        outcome: result.outcome,
        status: OUTCOME_STATUS[result.outcome],
        ms: performance.now() - started,
      };
      if (result.eventId !== undefined) entry.eventId = result.eventId;
      if (result.type !== undefined) entry.type = result.type;
      if (result.confirmed !== undefined) entry.confirmed = result.confirmed;
      if (late) entry.late = true;
      if (result.error !== undefined) entry.error = logError(result.error);
      writeLog(entry);
    };

    const answer = (result: DeliveryResult): PlainResponse => {
      const status = OUTCOME_STATUS[result.outcome];
      const headers: Record<string, string> = { 'content-type': TEXT, 'cache-control': 'no-store' };
      if (result.outcome === 'method-not-allowed') headers['allow'] = 'POST';
      if (result.outcome === 'unsupported-encoding') headers['accept-encoding'] = 'identity'; // RFC 9110 §15.5.16
      return { status, headers, body: result.message ?? OUTCOME_MESSAGE[result.outcome] };
    };

    /** Hands `work` (which never rejects) to the runtime's `waitUntil`, if the adapter has one. */
    const keepAlive = (waitUntil: HandleOptions['waitUntil'], work: Promise<unknown>): void => {
      if (waitUntil === undefined) return;
      try {
        waitUntil(work);
      } catch {
        // a waitUntil that throws (e.g. called outside its request) cannot keep it alive; the work goes on
      }
    };

    async function deliver(input: DeliveryInput, waitUntil?: HandleOptions['waitUntil']): Promise<PlainResponse> {
      const started = performance.now();
      // a span per delivery and its duration by outcome, when OpenTelemetry is on
      const use = telemetry.use();
      const observed = use === undefined ? undefined : (await use)?.delivery(input.headers);
      const refused = refusal(input) ?? (draining ? { outcome: 'draining' } : undefined);
      if (refused !== undefined) {
        log(refused, started);
        observed?.answered(refused, OUTCOME_STATUS[refused.outcome], undefined);
        return answer(refused);
      }
      const progress: DeliveryProgress = {};
      const background = (task: Promise<void>): void => {
        const tracked = task.catch((error: unknown) => log({ ...progress, outcome: 'handled', error }, started, true));
        inHand.set(tracked, progress);
        void tracked.finally(() => inHand.delete(tracked));
        keepAlive(waitUntil, tracked);
      };
      const bodyRead = new AbortController();
      bodyReads.add(bodyRead);
      const run = () => runDelivery(config, signatures, input, progress, background, bodyRead.signal);
      const work = (observed === undefined ? run() : observed.run(run)).catch(
        (error: unknown): DeliveryResult => ({ ...progress, outcome: 'failed', error }),
      );
      inHand.set(work, progress);
      void work.finally(() => {
        inHand.delete(work);
        bodyReads.delete(bodyRead);
      });

      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          resolve(undefined);
          // a body still arriving at the deadline is not waited for: nothing is claimed yet
          bodyRead.abort(new BodyDeadlineError(config.responseTimeoutMs));
        }, config.responseTimeoutMs);
      });
      const result = await Promise.race([work, timedOut]);
      clearTimeout(timer);
      if (result !== undefined) {
        log(result, started);
        observed?.answered(result, OUTCOME_STATUS[result.outcome], progress.claim);
        return answer(result);
      }
      const timeout: DeliveryResult = { ...progress, outcome: 'timeout' };
      log(timeout, started);
      observed?.answered(timeout, OUTCOME_STATUS.timeout, progress.claim, true);
      // log never throws, and work never rejects
      keepAlive(waitUntil, work.then((late) => {
        log(late, started, true);
        observed?.late(late);
      }));
      return answer(timeout);
    }

    /** What is still in hand; a delivery and the background work it handed on count once. */
    function report(): DrainReport {
      const deliveries = [...new Set(inHand.values())].map(({ eventId, type }): InHandDelivery => ({ work: 'webhook.delivery', eventId, type }));
      return { drained: deliveries.length === 0, inHand: deliveries };
    }

    return {
      deliver: (input, waitUntil) => deliver(input, waitUntil).catch(() => answer({ outcome: 'failed' })),

      async drain(options?: DrainOptions): Promise<DrainReport> {
        if (options !== undefined && (options === null || typeof options !== 'object')) {
          throw new TypeError(`drain options must be an object { timeoutMs? }, got ${typeName(options)}`);
        }
        const timeoutMs = timerMs('drain timeoutMs', options?.timeoutMs, 15_000);
        draining = true;
        // a body still arriving is never waited for: that delivery is answered 503 and redelivered
        for (const bodyRead of bodyReads) bodyRead.abort(new DrainingAbort());
        let timer: ReturnType<typeof setTimeout> | undefined;
        const deadline = new Promise<true>((resolve) => {
          timer = setTimeout(() => resolve(true), timeoutMs);
        });
        try {
          // work in hand may hand on background work (retries of a failed complete): wait for that too
          while (inHand.size > 0) {
            const timedOut = await Promise.race([Promise.allSettled([...inHand.keys()]), deadline]);
            if (timedOut === true) return report();
          }
          return report();
        } finally {
          clearTimeout(timer);
        }
      },
    };
  };
}
