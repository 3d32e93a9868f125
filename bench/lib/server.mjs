// The bench's stand-in for the checkout service (and for the peers' APIs), in its own process so its
// CPU never counts against the client being measured. node:http, keep-alive, 127.0.0.1 only.
//
// Started by `startServer()` below (child_process.fork); it answers on IPC with its port.
//   POST /api/v1/partner-api/auth/token                 token exchange (x-partner-id, x-partner-secret)
//   GET  /api/v1/partner-api/orders/by-external-id/:id   the order (Bearer token checked, 401 when expired)
//   GET  /api/v1/partner-api/withdrawals/by-external-id/:id
//   GET  /v1/models/:id                                  what openai's models.retrieve() calls
//   GET  /v1/customers/:id                               what stripe's customers.retrieve() calls
//   GET  /__stats?partner=ID                             { exchanges, rejected, lifetimesMs, issuedAt } for that partner
// Tokens are opaque and live 3600 s, except for partners whose id contains `ttl3` (opaque tokens
// with expiresIn 3) or `jwt3` (a JWT whose `exp` is 3 s ahead, rounded up to a whole second, while
// expiresIn says 3600: the client must honour exp). An expired token gets a 401.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const API = '/api/v1/partner-api';

export function startServer() {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
    child.once('message', (message) => {
      const url = `http://127.0.0.1:${message.port}`;
      resolve({
        url,
        pid: child.pid,
        async stats(partner) {
          const res = await fetch(`${url}/__stats?partner=${encodeURIComponent(partner)}`);
          return res.json();
        },
        close() {
          child.removeAllListeners('exit');
          return new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          });
        },
      });
    });
  });
}

function serve() {
  const order = JSON.stringify({
    externalId: 'o-1',
    currency: 'USDT',
    settlement: { status: 'Settled', tradeId: 't-1' },
    amount: '125.40',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  const withdrawal = JSON.stringify({ externalId: 'w-1', status: 'Completed', amount: '80.00', createdAt: '2026-01-01T00:00:00.000Z' });
  const model = JSON.stringify({ id: 'gpt-bench', object: 'model', created: 1767225600, owned_by: 'bench' });
  const customer = JSON.stringify({
    id: 'cus_bench',
    object: 'customer',
    created: 1767225600,
    email: 'bench@example.com',
    livemode: false,
    metadata: {},
  });
  /** token → { partner, expiresAt } */
  const tokens = new Map();
  /** partner → { exchanges, rejected, issuedAt: [ms], lifetimesMs: [ms] } */
  const stats = new Map();
  const statsOf = (partner) => {
    let s = stats.get(partner);
    if (s === undefined) stats.set(partner, (s = { exchanges: 0, rejected: 0, issuedAt: [], lifetimesMs: [] }));
    return s;
  };
  const b64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

  const send = (res, status, body) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-request-id': 'req-bench',
    });
    res.end(body);
  };

  const bearer = (req, res) => {
    const auth = req.headers.authorization ?? '';
    const entry = tokens.get(auth.slice(7));
    if (entry !== undefined && Date.now() < entry.expiresAt) return true;
    if (entry !== undefined) statsOf(entry.partner).rejected++;
    send(res, 401, '{"message":"invalid or expired token"}');
    return false;
  };

  const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
    const url = req.url ?? '/';
    // drain any request body (the token exchange has none, but be safe)
    req.resume();
    if (req.method === 'GET' && url.startsWith(`${API}/orders/by-external-id/`)) {
      if (bearer(req, res)) send(res, 200, order);
    } else if (req.method === 'POST' && url === `${API}/auth/token`) {
      const partner = String(req.headers['x-partner-id'] ?? '');
      if (partner === '' || !req.headers['x-partner-secret']) {
        send(res, 401, '{"message":"missing credentials"}');
        return;
      }
      const now = Date.now();
      let accessToken;
      let expiresIn = 3600;
      let expiresAt;
      if (partner.includes('jwt3')) {
        const exp = Math.ceil((now + 3000) / 1000);
        expiresAt = exp * 1000;
        const claims = { sub: partner, iat: Math.floor(now / 1000), exp };
        accessToken = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}.${randomBytes(32).toString('base64url')}`;
      } else {
        if (partner.includes('ttl3')) expiresIn = 3;
        expiresAt = now + expiresIn * 1000;
        accessToken = randomBytes(24).toString('base64url');
      }
      const s = statsOf(partner);
      s.exchanges++;
      s.issuedAt.push(now);
      s.lifetimesMs.push(expiresAt - now);
      tokens.set(accessToken, { partner, expiresAt });
      send(res, 200, JSON.stringify({ accessToken, tokenType: 'Bearer', expiresIn }));
    } else if (req.method === 'GET' && url.startsWith(`${API}/withdrawals/by-external-id/`)) {
      if (bearer(req, res)) send(res, 200, withdrawal);
    } else if (req.method === 'GET' && url.startsWith('/v1/models/')) {
      send(res, 200, model);
    } else if (req.method === 'GET' && url.startsWith('/v1/customers/')) {
      send(res, 200, customer);
    } else if (req.method === 'GET' && url.startsWith('/__stats')) {
      const partner = new URL(url, 'http://x').searchParams.get('partner') ?? '';
      send(res, 200, JSON.stringify(statsOf(partner)));
    } else {
      send(res, 404, '{"message":"not found"}');
    }
  });
  server.headersTimeout = 130_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: server.address().port });
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop); // the parent died: do not linger
}

if (process.argv[2] === '--serve') serve();
