import { CheckoutClient } from 'checkout-partner-sdk';
import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createStatusTracker, type StatusChange } from 'checkout-partner-sdk/tracker';
import { Redis } from 'ioredis';

// change: { id, kind, externalId, status, previousStatus?, record, source: 'poll' | 'webhook', event?, signal }
async function record(change: StatusChange): Promise<void> {
  console.log(`${change.kind} ${change.externalId} ${change.status}`); // your effect, keyed by change.id
}

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
const tracker = createStatusTracker({
  client: new CheckoutClient(), // CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
  store: new RedisStatusStore({ client: redis }),
  owner: process.env.HOSTNAME, // stable per process slot (a pod name): a restart takes back its own leases
  onChange: record,
  onWatchEnd: ({ externalId, reason, status }) => console.log(externalId, reason, status),
});
tracker.start(); // in every process: they share the store, one reads a record at a time
await tracker.watchWithdrawal('w-7'); // or tracker.watch('withdrawal', 'w-7')

// SIGTERM comes after the platform's pre-stop wait (webhooks.md#graceful-shutdown)
async function shutdown(): Promise<void> {
  await tracker.drain(); // 10 s at most
  await redis.quit(); // last: the process then exits
}
process.once('SIGTERM', () => void shutdown());
