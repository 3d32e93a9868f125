import { env } from '../internal/env.js';
import { StoreRequiredError } from './errors.js';

// Refused at first use, never at construction: a build (`next build` sets NODE_ENV=production) constructs parts it never uses.

const REFUSALS = {
  webhook:
    'createWebhookHandler was given no store and NODE_ENV is production: the in-memory default dedupes in this process only, ' +
    'so with several replicas or a restart an event runs onEvent again. Pass store: new RedisEventStore(...) ' +
    '(checkout-partner-sdk/redis) or new PostgresEventStore(...) (checkout-partner-sdk/postgres), or new MemoryEventStore() for a single instance',
  tracker:
    'createStatusTracker was given no store and NODE_ENV is production: the in-memory default lives in this process only, ' +
    'so every replica hands every change to onChange, and a restart loses the watches. Pass store: new RedisStatusStore(...) ' +
    '(checkout-partner-sdk/redis) or new PostgresStatusStore(...) (checkout-partner-sdk/postgres), or new MemoryStatusStore() for a single instance',
} as const;

export function defaultStoreRefusal(part: keyof typeof REFUSALS, options: { store?: unknown }): StoreRequiredError | undefined {
  if (options.store !== undefined || env('NODE_ENV')?.trim().toLowerCase() !== 'production') return undefined;
  return new StoreRequiredError(REFUSALS[part]);
}
