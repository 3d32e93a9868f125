// Part: the load control under an outage (issue 18). 64 callers against a service that answers 503
// for a while, then recovers, with the retry budget on (the default) and off: requests per call
// during the outage, requests in the first second after recovery, how long calls kept failing after
// it. Then a service that accepts connections and never answers, at 50 calls a second, with the
// default concurrency bound (64) and with the bound lifted (as the client was before): the most
// sockets open, heap growth, the burst after recovery, the worst event-loop delay.
// Then the hung-service convoy (issue 23): concurrency 1, 300 ms attempts, 50 looping callers,
// against a service in a child process that counts requests and sockets; and the heap each call
// waiting for its turn costs (10,000 waiters behind one request that never answers).
// The healthy read path's cost is the `reads` and `overhead` parts (the SDK against ky alone).
import { CheckoutClient } from 'checkout-partner-sdk';
import { flag, report } from '../lib/measure.mjs';
import { convoy, outage, silent, waiterHeap } from '../lib/outage.mjs';

const quick = flag('quick', false);
const down = Number(flag('down-seconds', quick ? 6 : 12));
const up = quick ? 3 : 5;
const silentSeconds = Number(flag('silent-seconds', quick ? 5 : 10));

const budgetOn = await outage({ CheckoutClient, budget: true, downSeconds: down, upSeconds: up });
const budgetOff = await outage({ CheckoutClient, budget: false, downSeconds: down, upSeconds: up });
const bounded = await silent({ CheckoutClient, seconds: silentSeconds });
const unbounded = await silent({ CheckoutClient, seconds: silentSeconds, rateLimit: { concurrency: 1_000_000 } });
const queue = {
  convoy: await convoy({ CheckoutClient, callers: 50, seconds: quick ? 2 : 3, concurrency: 1, timeoutMs: 300 }),
  heap: await waiterHeap({ CheckoutClient, waiters: 10_000 }),
};
report({ outage: { budgetOn, budgetOff }, silent: { bounded, unbounded }, queue });
