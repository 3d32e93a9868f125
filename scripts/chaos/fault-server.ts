/**
 * A fault-injecting checkout service on 127.0.0.1 (node:http, run as a child process of run.ts).
 *
 * Business GETs: random 500/502/503 (503 sometimes with Retry-After 0–1 s), 429 with Retry-After
 * 0 (see serveFault), connection resets (socket.destroy()), responses slower than the client's timeout, and 401
 * once the token was revoked or has expired. POST /auth/token: rare random faults, and outage
 * windows during which every exchange fails (503 or a reset). Tokens are revoked on a schedule, and
 * at the start of each outage, so the client must mint a token while the exchange is down.
 *
 * Every response is logged per external id (the load uses a unique id per call), so run.ts can
 * check that each failure the client surfaced is explained by the faults served.
 *
 * Env: CHAOS_PARTNER_ID, CHAOS_PARTNER_SECRET (the credentials the exchange accepts), CHAOS_SEED.
 * IPC: sends `{ type: 'ready', url }`; on `{ type: 'start' }` starts the schedule; on
 * `{ type: 'report' }` replies `{ type: 'report', report }`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one attempt got. */
export type Outcome = 'ok' | '500' | '502' | '503' | '429' | 'reset' | 'slow' | '401';

export interface ExchangeEntry {
  at: number;
  outcome: Outcome;
}

export interface FaultReport {
  /** Outcomes of the attempts per external id, in order. */
  calls: Record<string, Outcome[]>;
  exchanges: ExchangeEntry[];
  /** Epoch ms of each revocation of every token. */
  revocations: number[];
  outages: { from: number; to: number }[];
  /** Requests that broke the API contract (secret on a business call, Bearer on the exchange...). */
  violations: string[];
  tokensIssued: number;
}

interface Plan {
  seed: number;
  /** Per business attempt: probabilities of each fault (the rest is served normally). */
  faults: Partial<Record<Exclude<Outcome, 'ok' | '401'>, number>>;
  /** Per exchange attempt outside the outages. */
  exchangeFaultRate: number;
  slowMs: number;
  tokenTtlSeconds: number;
  revokeEveryMs: number;
  outages: { atMs: number; forMs: number }[];
}

const plan: Plan = {
  seed: Number(process.env.CHAOS_SEED ?? 0x5eed),
  faults: { '500': 0.03, '502': 0.02, '503': 0.03, '429': 0.03, reset: 0.02, slow: 0.015 },
  exchangeFaultRate: 0.05,
  slowMs: Number(process.env.CHAOS_SLOW_MS ?? 1600),
  tokenTtlSeconds: 6, // the client reuses it for 3 s (skew capped at half the lifetime), then mints again
  revokeEveryMs: 2500,
  outages: [
    { atMs: 4000, forMs: 2500 },
    { atMs: 11000, forMs: 2000 },
  ],
};

/** mulberry32: a small seeded PRNG, so a run can be replayed with CHAOS_SEED. */
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

const random = prng(plan.seed);
const report: FaultReport = { calls: {}, exchanges: [], revocations: [], outages: [], violations: [], tokensIssued: 0 };
/** Valid tokens and their server-side expiry (epoch ms). */
const tokens = new Map<string, number>();
let outageUntil = 0;

function pickFault(): Exclude<Outcome, '401'> {
  let r = random();
  for (const [fault, p] of Object.entries(plan.faults) as [Exclude<Outcome, 'ok' | '401'>, number][]) {
    if (r < p) return fault;
    r -= p;
  }
  return 'ok';
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': randomUUID(), ...headers });
  res.end(text);
}

function serveFault(req: IncomingMessage, res: ServerResponse, fault: Exclude<Outcome, 'ok' | '401'>, ok: () => void): void {
  switch (fault) {
    case 'reset':
      req.socket.destroy();
      return;
    case 'slow': {
      // answer (correctly) only after the client's timeout; forget it if the client gave up
      const timer = setTimeout(ok, plan.slowMs);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    case '429':
      // Retry-After 0: a longer one pauses every request of the client (issue 18), and at 3% of
      // requests the client would spend the run paused; the pause has its own tests (test/client/load/)
      send(res, 429, { message: 'slow down' }, { 'retry-after': '0' });
      return;
    case '503':
      send(res, 503, { message: 'unavailable' }, random() < 0.5 ? { 'retry-after': String(Math.round(random())) } : {});
      return;
    default:
      send(res, Number(fault), { message: `injected ${fault}` });
  }
}

function exchange(req: IncomingMessage, res: ServerResponse): void {
  const now = Date.now();
  if (req.headers.authorization !== undefined) report.violations.push('POST /auth/token carried an Authorization header');
  const log = (outcome: Outcome) => report.exchanges.push({ at: now, outcome });
  if (now < outageUntil) {
    const outcome: Outcome = random() < 0.8 ? '503' : 'reset';
    log(outcome);
    if (outcome === 'reset') req.socket.destroy();
    else send(res, 503, { message: 'identity provider unavailable' });
    return;
  }
  if (random() < plan.exchangeFaultRate) {
    const outcome: Outcome = random() < 0.5 ? '500' : 'reset';
    log(outcome);
    if (outcome === 'reset') req.socket.destroy();
    else send(res, 500, { message: 'injected 500' });
    return;
  }
  if (
    req.headers['x-partner-id'] !== process.env.CHAOS_PARTNER_ID ||
    req.headers['x-partner-secret'] !== process.env.CHAOS_PARTNER_SECRET
  ) {
    report.violations.push('POST /auth/token with wrong or missing partner headers');
    log('401');
    send(res, 401, { message: 'invalid credentials' });
    return;
  }
  log('ok');
  const accessToken = `chaos-token-${randomUUID()}`;
  tokens.set(accessToken, now + plan.tokenTtlSeconds * 1000);
  report.tokensIssued += 1;
  send(res, 200, { accessToken, tokenType: 'Bearer', expiresIn: plan.tokenTtlSeconds });
}

function business(req: IncomingMessage, res: ServerResponse, kind: 'orders' | 'withdrawals', rawId: string): void {
  const id = decodeURIComponent(rawId);
  const outcomes = (report.calls[id] ??= []);
  if (req.headers['x-partner-secret'] !== undefined || req.headers['x-partner-id'] !== undefined) {
    report.violations.push(`GET ${kind} carried x-partner-* headers`);
  }
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const expiry = token === undefined ? undefined : tokens.get(token);
  if (expiry === undefined || expiry <= Date.now()) {
    outcomes.push('401');
    send(res, 401, { message: 'invalid or expired token' });
    return;
  }
  const ok = () =>
    send(
      res,
      200,
      kind === 'orders'
        ? { externalId: id, currency: 'USDT', settlement: { status: 'Settled', tradeId: `t-${id}` }, extra: 1 }
        : { externalId: id, status: 'Completed' },
    );
  const fault = pickFault();
  outcomes.push(fault);
  if (fault === 'ok') ok();
  else serveFault(req, res, fault, ok);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const match = /^\/api\/v1\/partner-api\/(orders|withdrawals)\/by-external-id\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'POST' && url.pathname === '/api/v1/partner-api/auth/token') exchange(req, res);
  else if (req.method === 'GET' && match) business(req, res, match[1] as 'orders' | 'withdrawals', match[2] ?? '');
  else send(res, 404, { message: 'no such route' });
});
server.keepAliveTimeout = 5000;

function revokeAll(): void {
  tokens.clear();
  report.revocations.push(Date.now());
}

function start(): void {
  const t0 = Date.now();
  setInterval(revokeAll, plan.revokeEveryMs);
  for (const outage of plan.outages) {
    setTimeout(() => {
      outageUntil = Date.now() + outage.forMs;
      report.outages.push({ from: Date.now(), to: outageUntil });
      revokeAll();
    }, outage.atMs);
  }
  process.stdout.write(`fault server: schedule started at ${new Date(t0).toISOString()} (seed ${plan.seed})\n`);
}

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
});

process.on('message', (message: { type?: string }) => {
  if (message.type === 'start') start();
  if (message.type === 'report') process.send?.({ type: 'report', report });
});
process.on('disconnect', () => process.exit(0)); // the parent is gone: do not linger
