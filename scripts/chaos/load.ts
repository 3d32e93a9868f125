/**
 * The load of the chaos run (a child process of run.ts): CHAOS_CALLS status reads (orders and
 * withdrawals, a unique external id each) at CHAOS_CONCURRENCY concurrent, through one real
 * CheckoutClient imported from the BUILT package, against the fault server at CHAOS_URL. A small
 * share of calls is aborted by the caller. Writes one record per call to CHAOS_RESULT, then simply
 * returns: run.ts fails the run if this process does not exit by itself (a leaked timer or socket).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CheckoutClient, CheckoutError } from 'checkout-partner-sdk';
import { exitWatchdog, FROM_SRC } from './children.js';

export interface CallRecord {
  id: string;
  /** Epoch ms. */
  start: number;
  end: number;
  latencyMs: number;
  ok: boolean;
  /** The record's externalId matched the id asked for. */
  matched?: boolean;
  /** The caller aborted this call. */
  aborted?: boolean;
  error?: {
    name: string;
    message: string;
    status: number | undefined;
    /** The error's `attempts`: the requests the call sent. */
    attempts?: number | undefined;
    checkoutError: boolean;
    /** The rejection is the very `signal.reason` of the caller's abort. */
    isAbortReason: boolean;
  };
}

export interface LoadResult {
  /** Where `checkout-partner-sdk` resolved from (must be dist/ unless SDK_FROM_SRC=1). */
  resolved: string;
  /** null: a call that left no record (JSON writes an array's holes as null) */
  calls: (CallRecord | null)[];
  unhandled: string[];
  wallMs: number;
}

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new TypeError(`${name} is required`);
  return value;
};

const unhandled: string[] = [];
process.on('unhandledRejection', (reason) => {
  unhandled.push(`unhandledRejection: ${reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)}`);
});

const resolved = import.meta.resolve('checkout-partner-sdk');
if (!resolved.endsWith('/dist/index.js') && !FROM_SRC) {
  throw new Error(`checkout-partner-sdk resolved to ${resolved}, not the built dist/index.js`);
}

const total = Number(env('CHAOS_CALLS', '20000'));
const concurrency = Number(env('CHAOS_CONCURRENCY', '64'));
const abortShare = Number(env('CHAOS_ABORT_SHARE', '0.005'));

const client = new CheckoutClient({
  baseUrl: env('CHAOS_URL'),
  partnerId: env('CHAOS_PARTNER_ID'),
  partnerSecret: env('CHAOS_PARTNER_SECRET'),
  timeoutMs: Number(env('CHAOS_TIMEOUT_MS', '1000')),
  maxRetries: 2,
});

const calls = new Array<CallRecord | null>(total).fill(null);
let next = 0;

async function one(index: number): Promise<void> {
  const kind = index % 2 === 0 ? 'order' : 'withdrawal';
  // unique per call, with characters that need encoding, so the server can attribute every attempt
  const id = `${kind}/${index} ü#?`;
  const aborted = index % Math.round(1 / abortShare) === 7;
  const controller = aborted ? new AbortController() : undefined;
  const abortTimer = controller && setTimeout(() => controller.abort(), index % 40);
  const start = Date.now();
  const t0 = performance.now();
  const record: CallRecord = { id, start, end: 0, latencyMs: 0, ok: false, aborted };
  try {
    const options = controller ? { signal: controller.signal } : {};
    const result = kind === 'order' ? await client.getOrderByExternalId(id, options) : await client.getWithdrawalByExternalId(id, options);
    record.ok = true;
    record.matched = result.externalId === id;
  } catch (error) {
    const e = (error ?? {}) as { name?: unknown; message?: unknown; status?: unknown; attempts?: unknown };
    record.error = {
      name: String(e.name),
      message: String(e.message),
      status: typeof e.status === 'number' ? e.status : undefined,
      attempts: typeof e.attempts === 'number' ? e.attempts : undefined,
      checkoutError: error instanceof CheckoutError,
      isAbortReason: controller !== undefined && controller.signal.aborted && error === controller.signal.reason,
    };
  } finally {
    clearTimeout(abortTimer);
  }
  record.end = Date.now();
  record.latencyMs = performance.now() - t0;
  calls[index] = record;
}

async function worker(): Promise<void> {
  while (next < total) await one(next++); // bounded by `total`
}

const wallStart = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const result: LoadResult = { resolved, calls, unhandled, wallMs: performance.now() - wallStart };
writeFileSync(env('CHAOS_RESULT'), JSON.stringify(result));
process.stdout.write('LOAD-DONE\n');
// Nothing may keep this process alive now; if something does, say what and fail.
exitWatchdog(Number(env('CHAOS_EXIT_WITHIN_MS', '6000')), 'the chaos load (CheckoutClient)');
