/**
 * `npm run test:load`: the load control's long proofs (issue 18), against the BUILT package (dist/)
 * and a node:http server on 127.0.0.1 in this process. Exits non-zero on any violation.
 *
 * 1. 64 callers for 20 s against a service answering 503: after the first 2 s the requests per call
 *    are ≤ 1.3 with the retry budget (the default), and about 3 (≥ 2.7) with `retryBudget: false`;
 *    once the service is back, no call fails.
 * 2. 50 calls a second for 10 s against a service that accepts connections and never answers: the
 *    sockets open stay within 2 × the default concurrency (64; undici keeps an aborted request's
 *    connection a while), every call ends by its own deadline, and afterwards no timer is left and
 *    the process exits by itself.
 * 3. The hung-service convoy (issue 23), the service in a child process counting what reaches it:
 *    concurrency 1, 300 ms attempts, 50 looping callers for 3 s: the requests reaching it stay
 *    within 2 × `concurrency × elapsed / timeoutMs` (not hundreds); 200 looping callers for 8 s:
 *    the sockets open stay within concurrency + 3, and the requests within the same bound; and at
 *    concurrency 64, within 64 + 16 sockets.
 *
 * Bounded: a 150 s hard limit. Env: LOAD_SECONDS (the outage's length, default 20).
 */
import { CheckoutClient } from 'checkout-partner-sdk';
import { convoy, outage, silent } from '../../bench/lib/outage.mjs';
import { exitWatchdog } from '../chaos/children.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 20);
const hardStop = setTimeout(() => {
  process.stderr.write('FAIL: the load run exceeded its 150 s hard limit\n');
  process.exit(1);
}, 150_000);
hardStop.unref();

const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${what}\n`);
  if (!ok) failures.push(what);
};

const on = await outage({ CheckoutClient, budget: true, downSeconds: seconds, upSeconds: 3 });
check(
  on.requestsPerCallInOutage <= 1.3,
  `503 for ${seconds} s, 64 callers, retry budget on: ${on.requestsPerCallInOutage.toFixed(2)} requests per call after the first 2 s (≤ 1.3)`,
);
check(
  on.callsFailedAfterRecovery === 0 && on.successesAfterRecovery > 0,
  `after recovery: ${on.successesAfterRecovery} calls succeeded, ${on.callsFailedAfterRecovery} failed`,
);
const off = await outage({ CheckoutClient, budget: false, downSeconds: Math.min(seconds, 8), upSeconds: 2 });
check(off.requestsPerCallInOutage >= 2.7, `retry budget off: ${off.requestsPerCallInOutage.toFixed(2)} requests per call (about 3)`);

const quiet = await silent({ CheckoutClient, seconds: Math.min(seconds, 10) });
check(
  quiet.maxOpenSockets <= 129,
  `silent service, ${quiet.calls} calls at 50/s: at most ${quiet.maxOpenSockets} sockets open (≤ 2 × 64 + 1)`,
);
check(
  quiet.worstLatePastDeadlineMs <= 250,
  `every call ended by its deadline (latest: ${quiet.worstLatePastDeadlineMs.toFixed(0)} ms past it)`,
);
const fifty = await convoy({ CheckoutClient, callers: 50, seconds: 3, concurrency: 1, timeoutMs: 300 });
check(
  fifty.requests <= 2 * fifty.bound,
  `hung service, concurrency 1, 300 ms attempts, 50 looping callers for ${(fifty.elapsedMs / 1000).toFixed(1)} s: ${fifty.requests} requests reached it (≤ 2 × ${fifty.bound.toFixed(1)}); ${fifty.unsent} calls failed unsent as queue timeouts`,
);
const twoHundred = await convoy({ CheckoutClient, callers: 200, seconds: 8, concurrency: 1, timeoutMs: 300 });
check(
  twoHundred.maxOpenSockets <= twoHundred.concurrency + 3,
  `hung service, 200 looping callers for ${(twoHundred.elapsedMs / 1000).toFixed(1)} s: at most ${twoHundred.maxOpenSockets} sockets open (≤ concurrency 1 + 3), ${twoHundred.connections} connections in all`,
);
check(
  twoHundred.requests <= 2 * twoHundred.bound,
  `hung service, 200 callers: ${twoHundred.requests} requests reached it (≤ 2 × ${twoHundred.bound.toFixed(1)})`,
);
const wide = await convoy({ CheckoutClient, callers: 200, seconds: 8, concurrency: 64, timeoutMs: 300 });
check(
  wide.maxOpenSockets <= wide.concurrency + 16 && wide.requests <= 2 * wide.bound,
  `hung service, concurrency 64, 200 looping callers: at most ${wide.maxOpenSockets} sockets open (≤ 64 + 16), ${wide.requests} requests (≤ 2 × ${wide.bound.toFixed(0)})`,
);

const timers = process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
check(timers === 0, `no timer left after the calls (${timers})`);

process.stdout.write(`${JSON.stringify({ budgetOn: on, budgetOff: off, silent: quiet, convoy: { fifty, twoHundred, wide } })}\n`);
if (failures.length > 0) {
  process.stderr.write(`load: ${failures.length} check(s) failed\n`);
  process.exitCode = 1;
}
// nothing may keep the process alive now: no timer, no socket in use
exitWatchdog(5_000, 'the load run');
