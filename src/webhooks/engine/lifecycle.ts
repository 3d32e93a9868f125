import { timerMs } from '../../internal/arguments.js';
import { noticeMemoryDefault } from '../../internal/memory-notice.js';
import { defaultStoreRefusal } from '../../stores/default-store.js';
import { handlingAbandoned } from '../../telemetry/hooks.js';
import { typeName } from '../../internal/type-name.js';
import type { ObservedDelivery } from '../../telemetry/webhook-delivery.js';
import { Telemetry } from '../../telemetry/telemetry.js';
import type { DrainOptions, DrainReport } from '../../drain.js';
import type { Signatures } from '../signature/signature.js';
import { answer, logDelivery } from './answer.js';
import { BodyDeadlineError, DrainingAbort, refusal, runDelivery } from './deliver.js';
import type { DeliveryInput, DeliveryProgress, DeliveryResult, PlainResponse } from './delivery-types.js';
import type { WebhookHandlerOptions } from './options.js';
import { OUTCOME_STATUS } from './outcome.js';
import { neverConfirms, resolveOptions, type ResolvedOptions } from './resolve-options.js';
import { WorkInHand } from './work-in-hand.js';

// The engine knows no framework: each adapter turns its request into a DeliveryInput and writes the PlainResponse back.

/**
 * The second argument of `handler.handle(request, options)`.
 * @inline
 */
export interface HandleOptions {
  /**
   * Keeps the runtime alive for work that goes on after the response (a delivery answered 503 at `responseTimeoutMs`,
   * a claim's completion retried): on Cloudflare Workers pass the request context's `waitUntil`, else the claim may
   * hold until its lease passes. Not needed on Node, Bun and Deno. The promises it gets never reject.
   *
   * @example
   * app.post('/webhooks', (c) => handler.handle(c.req.raw, { waitUntil: c.executionCtx.waitUntil.bind(c.executionCtx) })); // Hono
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

export interface WebhookEngine {
  /** Never rejects: an unexpected failure is answered 500. */
  deliver(input: DeliveryInput, waitUntil?: HandleOptions['waitUntil']): Promise<PlainResponse>;
  drain(options?: DrainOptions): Promise<DrainReport>;
  health(): WebhookHandlerHealth;
}

/** What `handler.health()` returns. */
export interface WebhookHandlerHealth {
  /** Whether `drain()` was called: new deliveries are answered 503 (the provider redelivers). */
  draining: boolean;
  /** Deliveries (and work they handed on past their answer) this handler holds now. */
  inHand: number;
}

export type CreateEngine = <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookEngine;

export function engineFactory(signatures: Signatures): CreateEngine {
  return function createEngine<Transaction = undefined>(options: WebhookHandlerOptions<Transaction>): WebhookEngine {
    const config = resolveOptions(options);
    const engine = new DeliveryEngine(config, signatures);
    // said at the first delivery, not at construction: a build (Next.js) makes handlers that never take one
    const chosen = { store: options.store, logger: options.logger };
    return {
      deliver: (input, waitUntil) => {
        // with only a tracker, dedupe in memory costs a fleet one more read, never a second onChange
        const refused = config.trackerOnly ? undefined : defaultStoreRefusal('webhook', chosen);
        if (refused !== undefined) return Promise.resolve(engine.refuse(refused));
        noticeMemoryDefault('webhook', chosen);
        return engine.deliver(input, waitUntil);
      },
      drain: (drainOptions) => engine.drain(drainOptions),
      health: () => engine.health(),
    };
  };
}

interface Delivery {
  readonly input: DeliveryInput;
  readonly waitUntil: HandleOptions['waitUntil'];
  readonly started: number;
  readonly observed: ObservedDelivery | undefined;
  readonly progress: DeliveryProgress;
}

class DeliveryEngine implements WebhookEngine {
  readonly #config: ResolvedOptions;
  readonly #signatures: Signatures;
  readonly #telemetry: Telemetry;
  readonly #inHand = new WorkInHand();
  #draining = false;

  constructor(config: ResolvedOptions, signatures: Signatures) {
    this.#config = config;
    this.#signatures = signatures;
    this.#telemetry = new Telemetry(config.telemetry);
    // after every check that can throw: a handler that is never made warns about nothing
    const warning = neverConfirms(config);
    if (warning !== undefined) config.logger({ event: 'webhook.warning', ...warning });
  }

  deliver(input: DeliveryInput, waitUntil?: HandleOptions['waitUntil']): Promise<PlainResponse> {
    return this.#deliver(input, waitUntil).catch(() => answer({ outcome: 'failed' }));
  }

  refuse(error: Error): PlainResponse {
    const result: DeliveryResult = {
      outcome: 'misconfigured',
      error,
      message: 'Internal Server Error: the webhook handler is misconfigured',
    };
    logDelivery(this.#config.logger, result, performance.now());
    return answer(result);
  }

  health(): WebhookHandlerHealth {
    return { draining: this.#draining, inHand: this.#inHand.size };
  }

  async drain(options?: DrainOptions): Promise<DrainReport> {
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw new TypeError(`drain options must be an object { timeoutMs? }, got ${typeName(options)}`);
    }
    const timeoutMs = timerMs('drain timeoutMs', options?.timeoutMs, 10_000);
    this.#draining = true;
    this.#inHand.abortBodyReads(new DrainingAbort());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    try {
      const report = await this.#inHand.settle(deadline);
      // let go what is left: no claim renewed, no timer keeps the process alive
      if (!report.drained) this.#inHand.giveUp();
      return report;
    } finally {
      clearTimeout(timer);
    }
  }

  async #deliver(input: DeliveryInput, waitUntil: HandleOptions['waitUntil']): Promise<PlainResponse> {
    const started = performance.now();
    const use = this.#telemetry.use();
    const observed = use === undefined ? undefined : (await use)?.delivery(input.headers);
    const delivery: Delivery = { input, waitUntil, started, observed, progress: {} };
    const refused = refusal(input) ?? (this.#draining ? { outcome: 'draining' as const } : undefined);
    if (refused !== undefined) return this.#answered(delivery, refused);
    const bodyRead = this.#inHand.bodyRead();
    const work = this.#run(delivery, bodyRead);
    const result = await this.#byResponseDeadline(work, bodyRead);
    return result === undefined ? this.#answerTimeout(delivery, work) : this.#answered(delivery, result);
  }

  #run(delivery: Delivery, bodyRead: AbortController): Promise<DeliveryResult> {
    const { input, observed, progress } = delivery;
    const run = () =>
      runDelivery(this.#config, this.#signatures, input, progress, (task) => this.#background(delivery, task), bodyRead.signal);
    const work = (observed === undefined ? run() : observed.run(run))
      .catch((error: unknown): DeliveryResult => ({ ...progress, outcome: 'failed', error }))
      .then((result) => {
        if (progress.hold?.abandoned(result.error) === true && progress.hold.callbackBegan) {
          handlingAbandoned(this.#telemetry, 'onEvent', result.error.reason);
        }
        return result;
      });
    this.#inHand.add(work, progress, bodyRead);
    return work;
  }

  #background(delivery: Delivery, task: Promise<void>): void {
    const { progress, started } = delivery;
    const tracked = task.catch((error: unknown) =>
      logDelivery(this.#config.logger, { ...progress, outcome: 'handled', error }, started, true),
    );
    this.#inHand.add(tracked, progress);
    keepAlive(delivery.waitUntil, tracked);
  }

  /** `undefined` at `responseTimeoutMs`; a body still arriving then is not waited for (nothing is claimed yet). */
  async #byResponseDeadline(work: Promise<DeliveryResult>, bodyRead: AbortController): Promise<DeliveryResult | undefined> {
    const { responseTimeoutMs } = this.#config;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => {
        resolve(undefined);
        bodyRead.abort(new BodyDeadlineError(responseTimeoutMs));
      }, responseTimeoutMs);
    });
    const result = await Promise.race([work, timedOut]);
    clearTimeout(timer);
    return result;
  }

  #answered(delivery: Delivery, result: DeliveryResult): PlainResponse {
    logDelivery(this.#config.logger, result, delivery.started);
    delivery.observed?.answered(result, OUTCOME_STATUS[result.outcome], delivery.progress.claim);
    return answer(result);
  }

  #answerTimeout(delivery: Delivery, work: Promise<DeliveryResult>): PlainResponse {
    const { observed, progress, started } = delivery;
    const timeout: DeliveryResult = { ...progress, outcome: 'timeout' };
    logDelivery(this.#config.logger, timeout, started);
    observed?.answered(timeout, OUTCOME_STATUS.timeout, progress.claim, true);
    // logDelivery never throws, and work never rejects
    keepAlive(
      delivery.waitUntil,
      work.then((late) => {
        logDelivery(this.#config.logger, late, started, true);
        observed?.late(late);
      }),
    );
    return answer(timeout);
  }
}

function keepAlive(waitUntil: HandleOptions['waitUntil'], work: Promise<unknown>): void {
  if (waitUntil === undefined) return;
  try {
    waitUntil(work);
  } catch {
    // a waitUntil that throws (e.g. called outside its request) cannot keep it alive; the work goes on
  }
}
