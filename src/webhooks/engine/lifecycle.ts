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
  /** `handler.health()`: whether it drains, and the deliveries in hand. */
  health(): WebhookHandlerHealth;
}

/** What `handler.health()` returns. */
export interface WebhookHandlerHealth {
  /** Whether `drain()` was called: new deliveries are answered 503 (the provider redelivers). */
  draining: boolean;
  /** Deliveries (and work they handed on past their answer) this handler holds now. */
  inHand: number;
}

/** `createEngine(options)`: checks the options (a `TypeError` for a bad one) and starts an engine. */
export type CreateEngine = <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookEngine;

/** Builds `createEngine` over one entry point's signing functions. */
export function engineFactory(signatures: Signatures): CreateEngine {
  return function createEngine<Transaction = undefined>(options: WebhookHandlerOptions<Transaction>): WebhookEngine {
    const config = resolveOptions(options);
    const engine = new DeliveryEngine(config, signatures);
    // said at the first delivery, never at construction: a build (Next.js's) evaluates route
    // modules, and so makes handlers that never take a delivery
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

/** One delivery being handled: what it came with, and what is known of it so far. */
interface Delivery {
  readonly input: DeliveryInput;
  readonly waitUntil: HandleOptions['waitUntil'];
  /** When it came (`performance.now()`): its duration in the log entry. */
  readonly started: number;
  /** Its span and duration metric, when OpenTelemetry is on. */
  readonly observed: ObservedDelivery | undefined;
  /** Filled in as the delivery goes, so a timed-out delivery is still logged with its event. */
  readonly progress: DeliveryProgress;
}

/** The engine over resolved options: the deliveries in hand, the response deadline, logging, and drain. */
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

  /** Answers a delivery the handler refuses to take (500, `misconfigured`) and logs why. */
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
    // a body still arriving is never waited for: that delivery is answered 503 and redelivered
    this.#inHand.abortBodyReads(new DrainingAbort());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    try {
      const report = await this.#inHand.settle(deadline);
      // what is left is let go: no claim renewed, nothing of the handler's keeps the process alive
      if (!report.drained) this.#inHand.giveUp();
      return report;
    } finally {
      clearTimeout(timer);
    }
  }

  /** One delivery: refused at once (method, encoding, draining), else run and answered by `responseTimeoutMs`. */
  async #deliver(input: DeliveryInput, waitUntil: HandleOptions['waitUntil']): Promise<PlainResponse> {
    const started = performance.now();
    // a span per delivery and its duration by outcome, when OpenTelemetry is on
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

  /** Starts the delivery's steps (see runDelivery), held in hand until they end; resolves their result, never rejects. */
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

  /** Holds work a delivery hands on past its answer (retries of a failed complete); its failure is logged late. */
  #background(delivery: Delivery, task: Promise<void>): void {
    const { progress, started } = delivery;
    const tracked = task.catch((error: unknown) =>
      logDelivery(this.#config.logger, { ...progress, outcome: 'handled', error }, started, true),
    );
    this.#inHand.add(tracked, progress);
    keepAlive(delivery.waitUntil, tracked);
  }

  /** The work's result, or `undefined` at `responseTimeoutMs`; a body still arriving then is not waited for (nothing is claimed yet). */
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

  /** Logs and observes a result, and turns it into the response. */
  #answered(delivery: Delivery, result: DeliveryResult): PlainResponse {
    logDelivery(this.#config.logger, result, delivery.started);
    delivery.observed?.answered(result, OUTCOME_STATUS[result.outcome], delivery.progress.claim);
    return answer(result);
  }

  /** Answers 503 `timeout` now; the work goes on (kept alive), and its result is logged as `late` when it ends. */
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

/** Hands `work` (which never rejects) to the runtime's `waitUntil`, if the adapter has one. */
function keepAlive(waitUntil: HandleOptions['waitUntil'], work: Promise<unknown>): void {
  if (waitUntil === undefined) return;
  try {
    waitUntil(work);
  } catch {
    // a waitUntil that throws (e.g. called outside its request) cannot keep it alive; the work goes on
  }
}
