import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient, RateLimitError, ServerError, TimeoutError } from 'checkout-partner-sdk';
import { eventually } from '../helpers/eventually.js';
import { startServer, type RealServer } from './real-server.js';

// Time and connections stay bounded (issue 9, items 5-9), over real sockets on 127.0.0.1.

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const json = (res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** Orders by id: `ok`, `fail` (500), `stall` and `slow` (headers, half a body, then nothing), `limited` (429, Retry-After 1000000000); a partner `hang` gets no token response. */
function service(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): boolean | undefined {
  if (req.url?.endsWith('/auth/token')) return req.headers['x-partner-id'] === 'hang' ? true : undefined;
  const id = req.url?.split('/').pop();
  if (id === 'ok') json(res, 200, { externalId: 'ok' });
  else if (id === 'fail') json(res, 500, { message: 'boom' });
  else if (id === 'limited') json(res, 429, { message: 'slow down' }, { 'retry-after': '1000000000' });
  else if (id === 'stall' || id === 'slow') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"externalId":');
  } else return;
  return true;
}

const client = (url: string, extra: object = {}) => new CheckoutClient({ baseUrl: url, partnerId: 'p-1', partnerSecret: 's', ...extra });

describe('a timed-out or abandoned request closes its connection', () => {
  it('a stalled body that times out: the socket is closed at once', async () => {
    server = await startServer(service);
    const error = await client(server.url, { timeoutMs: 150, maxRetries: 0 })
      .getOrderByExternalId('stall')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(await server.unfinishedClosed(300)).toBe(0);
  });

  it('a call aborted mid-body: the socket is closed at once', async () => {
    server = await startServer(service);
    const controller = new AbortController();
    const pending = client(server.url).getOrderByExternalId('slow', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(await server.unfinishedClosed(300)).toBe(0);
  });

  it('a body cut by a timeout or an abort is closed even when the request was garbage-collected meanwhile', async () => {
    server = await startServer(service);
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL('fixtures/stalled-body-gc.ts', import.meta.url)), server.url],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // counted while the child still runs: its exit would close every socket
    const open = await new Promise<number>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('SETTLED')) resolve(server?.unfinishedClosed(500) ?? Promise.resolve(-1));
      });
      child.on('exit', () => resolve(-1));
    });
    await new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(undefined)));
    clearTimeout(killer);
    expect(stderr).toBe('');
    expect(JSON.parse(/RESULTS (.*)/.exec(stdout)?.[1] ?? 'null')).toEqual(['TimeoutError', 'AbortError']);
    expect(open).toBe(0);
  }, 30_000);

  it("a custom fetch that ends only on the Request's signal: the caller's abort and timeoutMs end the call after the Request was collected", async () => {
    const { code, stdout, stderr } = await runFixture('custom-fetch-gc.ts', [], ['--expose-gc']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(/RESULTS (.*)/.exec(stdout)?.[1] ?? 'null')).toEqual(['AbortError', 'TimeoutError']);
  }, 30_000);

  it('after successes, failures, timeouts and aborts, the process exits within 3 s of its last call', async () => {
    server = await startServer(service);
    const { code, stdout, stderr, exitedAt } = await runFixture('exit-after-calls.ts', [server.url]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const results = JSON.parse(/RESULTS (.*)/.exec(stdout)?.[1] ?? 'null') as string[];
    expect(results).toEqual(['ok', 'ServerError', 'TimeoutError', 'AbortError', 'RateLimitError', 'TimeoutError', 'AbortError']);
    const settledAt = Number(/SETTLED (\d+)/.exec(stdout)?.[1]);
    // what would hold it: an idle socket (4 s) or the hanging exchange's timer (30 s); the rest is a loaded machine's margin
    expect(exitedAt - settledAt).toBeLessThan(3_000);
  }, 30_000);
});

/** Runs `fixtures/<file>` in a child process (killed at 20 s) to its exit. */
async function runFixture(file: string, args: string[], flags: string[] = []) {
  const child = spawn(
    process.execPath,
    [...flags, '--import', 'tsx', fileURLToPath(new URL(`fixtures/${file}`, import.meta.url)), ...args],
    {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const { code, exitedAt } = await new Promise<{ code: number | null; exitedAt: number }>((resolve) =>
    child.on('exit', (exitCode) => resolve({ code: exitCode, exitedAt: Date.now() })),
  );
  clearTimeout(killer);
  return { code, stdout, stderr, exitedAt };
}

describe('a body cut or stalled once is retried', () => {
  it('retries a GET whose connection closes mid-body', async () => {
    let attempts = 0;
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      attempts += 1;
      if (attempts === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"externalId":');
        setTimeout(() => res.socket?.destroy(), 20);
      } else json(res, 200, { externalId: 'o-1' });
      return true;
    });
    expect(await client(server.url).getOrderByExternalId('o-1')).toEqual({ externalId: 'o-1' });
    expect(attempts).toBe(2);
  });

  it('retries a GET whose body stalls past the timeout', async () => {
    let attempts = 0;
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      attempts += 1;
      if (attempts === 1) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"externalId":');
      } else json(res, 200, { externalId: 'o-1' });
      return true;
    });
    expect(await client(server.url, { timeoutMs: 200 }).getOrderByExternalId('o-1')).toEqual({ externalId: 'o-1' });
    expect(attempts).toBe(2);
  });
});

describe('per-call timeoutMs and signal bound the whole call, the token exchange included', () => {
  it('a read with timeoutMs waiting on a hanging exchange rejects with TimeoutError in time', async () => {
    server = await startServer(service);
    const started = performance.now();
    const error = await client(server.url, { partnerId: 'hang' })
      .getOrderByExternalId('ok', { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(/within its timeoutMs \(300 ms\)/);
    expect(performance.now() - started).toBeLessThan(5_000); // not the hanging exchange: a margin for a loaded machine
    // nobody waits for the exchange any more: it was aborted and its connection closed
    expect(await server.unfinishedClosed(500)).toBe(0);
  });

  it('a caller that aborts stops waiting at once; the exchange goes on while another caller waits', async () => {
    let answer: (() => void) | undefined;
    let exchanges = 0;
    server = await startServer((req, res) => {
      if (!req.url?.endsWith('/auth/token')) return service(req, res);
      exchanges += 1;
      answer = () => json(res, 200, { accessToken: 'tok-late', tokenType: 'Bearer', expiresIn: 3600 });
      return true;
    });
    const c = client(server.url);
    const controller = new AbortController();
    const leaving = c.getOrderByExternalId('ok', { signal: controller.signal });
    const staying = c.getOrderByExternalId('ok');
    expect(await eventually(() => answer !== undefined)).toBe(true); // the exchange reached the service
    controller.abort();
    await expect(leaving).rejects.toMatchObject({ name: 'AbortError' });
    answer?.();
    expect(await staying).toEqual({ externalId: 'ok' });
    expect(exchanges).toBe(1);
  });

  it('a signal aborted before the call sends nothing at all, not even a token exchange', async () => {
    server = await startServer(service);
    const c = client(server.url);
    await expect(c.getOrderByExternalId('ok', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(c.getAccessToken({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toEqual([]);
  });

  it('timeoutMs bounds retries too: the call ends at its deadline', async () => {
    server = await startServer(service);
    const started = performance.now();
    const error = await client(server.url, { maxRetries: 10 })
      .getOrderByExternalId('fail', { timeoutMs: 700 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeLessThan(3_000); // not ten retries' backoffs
  });
});

describe('Retry-After past the cap or the deadline fails fast', () => {
  it('429 with Retry-After: 1000000000 rejects at once with RateLimitError carrying retryAfterMs', async () => {
    server = await startServer(service);
    const started = performance.now();
    const error = await client(server.url)
      .getOrderByExternalId('limited', { timeoutMs: 2_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(1e12);
    expect(performance.now() - started).toBeLessThan(1_500); // not the 2 s deadline
    expect(server.requests.filter((r) => r.includes('/orders/'))).toHaveLength(1);
  });

  it('a Retry-After under the cap but past the call deadline fails at once', async () => {
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      json(res, 503, { message: 'later' }, { 'retry-after': '5' });
      return true;
    });
    const started = performance.now();
    await expect(client(server.url).getOrderByExternalId('o-1', { timeoutMs: 2_000 })).rejects.toBeInstanceOf(ServerError);
    expect(performance.now() - started).toBeLessThan(1_500); // not the 2 s deadline
    expect(server.requests.filter((r) => r.includes('/orders/'))).toHaveLength(1);
  });

  it.each(['ratelimit-reset', 'x-ratelimit-reset', 'x-ratelimit-retry-after', 'x-rate-limit-reset'])(
    'a 503 with %s: 3600 and no Retry-After is retried on the client backoff, not parked for a minute',
    async (header) => {
      let attempts = 0;
      server = await startServer((req, res) => {
        if (!req.url?.includes('/orders/')) return;
        attempts += 1;
        if (attempts === 1) json(res, 503, {}, { [header]: '3600' });
        else json(res, 200, { externalId: 'o-1' });
        return true;
      });
      const started = performance.now();
      expect(await client(server.url).getOrderByExternalId('o-1')).toEqual({ externalId: 'o-1' });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(attempts).toBe(2);
    },
    15_000,
  );

  it('a Retry-After under the cap without a deadline is waited for and retried', async () => {
    let attempts = 0;
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      attempts += 1;
      if (attempts === 1) json(res, 429, {}, { 'retry-after': '1' });
      else json(res, 200, { externalId: 'o-1' });
      return true;
    });
    expect(await client(server.url).getOrderByExternalId('o-1')).toEqual({ externalId: 'o-1' });
    expect(attempts).toBe(2);
  });
});

describe('timer options are checked up front', () => {
  const valid = { baseUrl: 'https://checkout.test', partnerId: 'p', partnerSecret: 's' };
  it.each([3e9, 2 ** 31])('rejects timeoutMs %d at construction with a TypeError', (timeoutMs) => {
    expect(() => new CheckoutClient({ ...valid, timeoutMs })).toThrow(TypeError);
    expect(() => new CheckoutClient({ ...valid, timeoutMs })).toThrow(/at most 2147483647 milliseconds/);
  });

  it('accepts 2^31 - 1', () => {
    expect(() => new CheckoutClient({ ...valid, timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });

  it('rejects a per-call or wait timeoutMs over 2^31 - 1 before sending anything', async () => {
    server = await startServer(service);
    const c = client(server.url);
    await expect(c.getOrderByExternalId('ok', { timeoutMs: 3e9 })).rejects.toThrow(TypeError);
    await expect(c.getAccessToken({ timeoutMs: 3e9 })).rejects.toThrow(TypeError);
    await expect(c.waitForOrder('ok', () => true, { timeoutMs: 3e9 })).rejects.toThrow(TypeError);
    await expect(c.waitForOrder('ok', () => true, { intervalMs: 3e9 })).rejects.toThrow(TypeError);
    expect(server.requests).toEqual([]);
  });
});
