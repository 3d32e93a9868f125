// Outage scenarios for the load control (issue 18), shared by `bench/parts/outage.mjs` (figures) and
// `scripts/load/outage.ts` (`npm run test:load`, which asserts them). A node:http server on
// 127.0.0.1 in this process; the CheckoutClient class is passed in, so each caller picks the build.
//
//   outage():  `callers` callers read in a loop (`thinkMs` between calls) against a service that
//              answers 503 for `downSeconds`, then 200 for `upSeconds`: requests per call during the
//              outage (after its first `settleSeconds`), requests in the first second after
//              recovery, and how long after recovery calls kept failing.
//   silent():  `ratePerSecond` calls a second (each `callTimeoutMs`) against a service that accepts
//              connections and never answers, for `seconds`, then answers again: the most sockets
//              open at once, heap growth, requests in the 2 s after recovery, worst event-loop delay.
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const TOKEN = JSON.stringify({ accessToken: 'tok-outage', tokenType: 'Bearer', expiresIn: 3600 });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function serve(handle) {
  const sockets = new Set();
  let maxSockets = 0;
  const held = new Set();
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    if (req.url?.endsWith('/auth/token')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(TOKEN);
      return;
    }
    handle(req, res, held);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    maxSockets = Math.max(maxSockets, sockets.size);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    maxSockets: () => maxSockets,
    openSockets: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const ORDER = '{"externalId":"o-1","settlement":{"status":"Settled"}}';

/** @param {{ CheckoutClient: any, budget: boolean, callers?: number, thinkMs?: number, downSeconds: number, upSeconds: number, settleSeconds?: number }} o */
export async function outage({ CheckoutClient, budget, callers = 64, thinkMs = 25, downSeconds, upSeconds, settleSeconds = 2 }) {
  let down = true;
  const requests = []; // performance.now() of each order request
  const server = await serve((req, res) => {
    requests.push(performance.now());
    if (down) res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"down"}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(ORDER);
  });
  const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-outage', partnerSecret: 's', retryBudget: budget });
  await client.getAccessToken();
  const calls = []; // { start, end, ok, attempts }
  const start = performance.now();
  const endAt = start + (downSeconds + upSeconds) * 1000;
  // when the service came back: the timer, not the plan (a loaded event loop fires it late)
  let recoverAt = start + downSeconds * 1000;
  const flip = setTimeout(() => {
    down = false;
    recoverAt = performance.now();
  }, downSeconds * 1000);
  const caller = async () => {
    while (performance.now() < endAt) {
      const began = performance.now();
      try {
        await client.getOrderByExternalId('o-1');
        calls.push({ start: began, end: performance.now(), ok: true });
      } catch (error) {
        calls.push({ start: began, end: performance.now(), ok: false, attempts: error?.attempts });
      }
      await sleep(thinkMs);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  clearTimeout(flip);
  await server.close();
  const settledFrom = start + settleSeconds * 1000;
  // calls started in the outage (after the settle), all of whose requests fell in it
  const inOutage = calls.filter((c) => c.start >= settledFrom && c.end <= recoverAt);
  const outageRequests = requests.filter((t) => t >= settledFrom && t <= recoverAt).length;
  const outageCalls = calls.filter((c) => c.start >= settledFrom && c.start <= recoverAt).length;
  const firstSeconds = calls.filter((c) => c.start < settledFrom);
  const failedAfter = calls.filter((c) => c.start >= recoverAt && !c.ok);
  const lastFailure = failedAfter.reduce((last, c) => Math.max(last, c.end), recoverAt);
  return {
    budget,
    callers,
    thinkMs,
    downSeconds,
    upSeconds,
    calls: calls.length,
    requestsPerCallFirstSeconds: requests.filter((t) => t < settledFrom).length / Math.max(1, firstSeconds.length),
    requestsPerCallInOutage: outageRequests / Math.max(1, outageCalls),
    attemptsPerFailedCallInOutage: inOutage.reduce((sum, c) => sum + (c.attempts ?? 0), 0) / Math.max(1, inOutage.length),
    requestsFirstSecondAfterRecovery: requests.filter((t) => t >= recoverAt && t < recoverAt + 1000).length,
    callsFailedAfterRecovery: failedAfter.length,
    /** From recovery to the end of the last failing call started after it (0: none failed). */
    recoveryMs: lastFailure - recoverAt,
    successesAfterRecovery: calls.filter((c) => c.start >= recoverAt && c.ok).length,
  };
}

/** @param {{ CheckoutClient: any, ratePerSecond?: number, seconds: number, callTimeoutMs?: number, rateLimit?: object }} o */
export async function silent({ CheckoutClient, ratePerSecond = 50, seconds, callTimeoutMs = 5_000, rateLimit }) {
  let answering = false;
  const requests = [];
  const server = await serve((req, res, held) => {
    requests.push(performance.now());
    if (answering) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(ORDER);
      return;
    }
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  // attempts of 2/5 of the call's time: two retries fit in a call, as with the defaults (30 s per attempt)
  const timeoutMs = Math.round((callTimeoutMs * 2) / 5);
  const client = new CheckoutClient({
    baseUrl: server.url,
    partnerId: 'p-silent',
    partnerSecret: 's',
    timeoutMs,
    ...(rateLimit ? { rateLimit } : {}),
  });
  await client.getAccessToken();
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const pending = [];
  const late = []; // how far past its own deadline each call ended
  const start = performance.now();
  const recoverAt = start + seconds * 1000;
  for (let i = 0; performance.now() < recoverAt && i < ratePerSecond * seconds * 2; i++) {
    const began = performance.now();
    pending.push(
      client.getOrderByExternalId(`o-${i}`, { timeoutMs: callTimeoutMs }).then(
        () => late.push(performance.now() - began - callTimeoutMs),
        () => late.push(performance.now() - began - callTimeoutMs),
      ),
    );
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    await sleep(1000 / ratePerSecond);
  }
  answering = true;
  const settled = Promise.all(pending);
  await sleep(2_000);
  const afterRecovery = requests.filter((t) => t >= recoverAt && t < recoverAt + 2000).length;
  await settled;
  loop.disable();
  const maxSockets = server.maxSockets();
  await server.close();
  return {
    ratePerSecond,
    seconds,
    calls: pending.length,
    maxOpenSockets: maxSockets,
    heapGrowthMB: (heapPeak - heapBefore) / 1e6,
    requestsIn2sAfterRecovery: afterRecovery,
    worstLatePastDeadlineMs: Math.max(...late),
    eventLoopMaxDelayMs: loop.max / 1e6,
  };
}

/**
 * The hung-service convoy (issue 23): `callers` callers read in a loop for `seconds` against a
 * service that accepts connections and never answers, with `rateLimit.concurrency` and attempts of
 * `timeoutMs`. The service runs in a child process and counts what reaches it: requests (about
 * `concurrency × elapsed / timeoutMs` is the bound), sockets open at once (within `concurrency`
 * plus a few), connections made.
 * @param {{ CheckoutClient: any, callers: number, seconds: number, concurrency: number, timeoutMs: number }} o
 */
export async function convoy({ CheckoutClient, callers, seconds, concurrency, timeoutMs }) {
  const { fork } = await import('node:child_process');
  const child = fork(new URL('./hung-server.mjs', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const port = await new Promise((resolve, reject) => {
      child.once('message', (message) => resolve(message.port));
      child.once('exit', (code) => reject(new Error(`the hung server exited (${code})`)));
    });
    let last = { open: 0, maxOpen: 0, connections: 0, requests: 0 };
    child.on('message', (message) => {
      if (message.requests !== undefined) last = message;
    });
    const client = new CheckoutClient({
      baseUrl: `http://127.0.0.1:${port}`,
      partnerId: 'p-convoy',
      partnerSecret: 's',
      timeoutMs,
      rateLimit: { concurrency },
    });
    await client.getAccessToken();
    const start = performance.now();
    const outcomes = { calls: 0, unsent: 0, timedOut: 0, other: 0 };
    const caller = async () => {
      while (performance.now() - start < seconds * 1000) {
        outcomes.calls += 1;
        try {
          await client.getOrderByExternalId('o-1');
          outcomes.other += 1;
        } catch (error) {
          if (/was not sent/.test(error?.message)) outcomes.unsent += 1;
          else if (error?.name === 'TimeoutError') outcomes.timedOut += 1;
          else outcomes.other += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: callers }, caller));
    const elapsedMs = performance.now() - start;
    // the last report, once the closes of the last aborted requests reached the server
    await sleep(200);
    const final = await new Promise((resolve) => {
      child.once('message', resolve);
      child.send('report');
    });
    return {
      callers,
      seconds,
      concurrency,
      timeoutMs,
      elapsedMs,
      ...outcomes,
      requests: final.requests,
      /** `concurrency × elapsed / timeoutMs`: a request per slot per attempt. */
      bound: (concurrency * elapsedMs) / timeoutMs,
      maxOpenSockets: Math.max(final.maxOpen, last.maxOpen),
      connections: final.connections,
    };
  } finally {
    child.send('stop');
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  }
}

/**
 * Heap per waiting call: `waiters` calls queued behind one request that never answers (concurrency
 * 1, a `fetch` that never settles until aborted), heapUsed after a full GC before and while they
 * wait. Run with --expose-gc.
 * @param {{ CheckoutClient: any, waiters: number }} o
 */
export async function waiterHeap({ CheckoutClient, waiters }) {
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
  const heap = () => {
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  const fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith('/auth/token')) return new Response(TOKEN, { status: 200, headers: { 'content-type': 'application/json' } });
    const signal = input instanceof Request ? input.signal : init?.signal;
    return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
  };
  const client = new CheckoutClient({
    baseUrl: 'http://127.0.0.1:9',
    partnerId: 'p-heap',
    partnerSecret: 's',
    fetch,
    timeoutMs: 600_000,
    maxRetries: 0,
    rateLimit: { concurrency: 1, maxQueue: waiters + 1 },
  });
  await client.getAccessToken();
  const controller = new AbortController();
  const head = client.getOrderByExternalId('head', { signal: controller.signal }).catch(() => undefined);
  await sleep(10);
  const before = heap();
  const calls = [];
  for (let i = 0; i < waiters; i++) calls.push(client.getOrderByExternalId(`o-${i}`, { signal: controller.signal }).catch(() => undefined));
  await sleep(50);
  const during = heap();
  controller.abort();
  await Promise.all([head, ...calls]);
  return { waiters, heapPerWaiterBytes: (during - before) / waiters };
}
