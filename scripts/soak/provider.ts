/**
 * The payment provider, simulated: signs each soak event like the provider (signPayload from the
 * BUILT webhooks entry) and POSTs it to one of the receivers, retrying (to any receiver) until a
 * 2xx, with backoff. 30% of events are delivered twice more than once: a third of those
 * duplicates concurrently with the original to another receiver, a third shortly after to another
 * receiver, a third late (5–20 s after). Events go out in shuffled order. Every loop is bounded by
 * attempts and by the deadline.
 */
import { signPayload } from 'checkout-partner-sdk/webhooks';
import { soakEvent } from './events.js';

export type DuplicateKind = 'concurrent' | 'other-receiver' | 'late';

interface Job {
  index: number;
  kind: 'original' | DuplicateKind;
  acked: boolean;
  attempts: number;
}

export interface ProviderStats {
  jobs: number;
  duplicates: Record<DuplicateKind, number>;
  acked: number;
  ackedOriginals: number;
  attempts: number;
  /** Responses by status, and `network` for no response. */
  statuses: Record<string, number>;
  unacked: { eventId: string; kind: string; attempts: number }[];
}

export interface ProviderOptions {
  events: number;
  receivers: readonly string[];
  secret: string;
  concurrency: number;
  deadline: number;
  seed: number;
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A counting semaphore with FIFO waiters. */
class Slots {
  #free: number;
  readonly #waiters: (() => void)[] = [];
  constructor(count: number) {
    this.#free = count;
  }
  async take(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
  give(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Provider {
  readonly stats: ProviderStats;
  readonly #options: ProviderOptions;
  readonly #random: () => number;
  readonly #slots: Slots;
  readonly #jobs: Job[] = [];

  constructor(options: ProviderOptions) {
    this.#options = options;
    this.#random = prng(options.seed);
    this.#slots = new Slots(options.concurrency);
    this.stats = {
      jobs: 0,
      duplicates: { concurrent: 0, 'other-receiver': 0, late: 0 },
      acked: 0,
      ackedOriginals: 0,
      attempts: 0,
      statuses: {},
      unacked: [],
    };
  }

  #finished = false;

  /** Resolves once `fraction` of the original deliveries are acknowledged; rejects if `run()` ends first. */
  async reached(fraction: number, what: string): Promise<void> {
    // bounded: run() ends by its deadline
    while (!this.#finished && this.stats.ackedOriginals / this.#options.events < fraction) await sleep(50);
    if (this.#finished) throw new Error(`the provider finished before ${what}`);
  }

  /** Delivers every event (and its duplicates) until each got a 2xx or the deadline passed. */
  async run(): Promise<ProviderStats> {
    try {
      return await this.#run();
    } finally {
      this.#finished = true;
    }
  }

  async #run(): Promise<ProviderStats> {
    const order = Array.from({ length: this.#options.events }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(this.#random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    const deliveries: Promise<void>[] = [];
    for (const index of order) {
      const body = JSON.stringify(soakEvent(index));
      const signed = { body, signature: await signPayload(body, this.#options.secret) };
      const original = this.#job(index, 'original');
      const first = this.#pick();
      deliveries.push(this.#deliver(original, signed, first, 0));
      if (this.#random() < 0.3) {
        const kind = (['concurrent', 'other-receiver', 'late'] as const)[Math.floor(this.#random() * 3)] as DuplicateKind;
        this.stats.duplicates[kind]++;
        const other = (first + 1 + Math.floor(this.#random() * (this.#options.receivers.length - 1))) % this.#options.receivers.length;
        const delay = kind === 'concurrent' ? 0 : kind === 'other-receiver' ? 200 + this.#random() * 800 : 5000 + this.#random() * 15_000;
        deliveries.push(this.#deliver(this.#job(index, kind), signed, other, delay));
      }
    }
    await Promise.all(deliveries);
    this.stats.unacked = this.#jobs
      .filter((job) => !job.acked)
      .map((job) => ({ eventId: soakEvent(job.index).eventId, kind: job.kind, attempts: job.attempts }));
    return this.stats;
  }

  #job(index: number, kind: Job['kind']): Job {
    const job: Job = { index, kind, acked: false, attempts: 0 };
    this.#jobs.push(job);
    this.stats.jobs++;
    return job;
  }

  #pick(): number {
    return Math.floor(this.#random() * this.#options.receivers.length);
  }

  async #deliver(job: Job, signed: { body: string; signature: string }, target: number, delayMs: number): Promise<void> {
    if (delayMs > 0) await sleep(delayMs);
    let receiver = target;
    for (let attempt = 0; attempt < 500 && Date.now() < this.#options.deadline; attempt++) {
      await this.#slots.take();
      let status: string;
      try {
        job.attempts++;
        this.stats.attempts++;
        const response = await fetch(`${this.#options.receivers[receiver]}/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-provider-signature': signed.signature },
          body: signed.body,
          signal: AbortSignal.timeout(6000),
        });
        await response.arrayBuffer();
        status = String(response.status);
      } catch {
        status = 'network';
      } finally {
        this.#slots.give();
      }
      this.stats.statuses[status] = (this.stats.statuses[status] ?? 0) + 1;
      if (status.startsWith('2')) {
        job.acked = true;
        this.stats.acked++;
        if (job.kind === 'original') this.stats.ackedOriginals++;
        return;
      }
      // back off, then try again at any receiver (the provider does not know which are up)
      await sleep(Math.min(1000, 50 * 2 ** Math.min(attempt, 5)) * (0.5 + this.#random()));
      receiver = this.#pick();
    }
  }
}
