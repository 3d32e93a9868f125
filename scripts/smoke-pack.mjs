#!/usr/bin/env node
// Packs the package, installs the tarball into a fresh project in a temporary folder, and uses it
// there the way a partner would: through `import` and `require` of every entry point, against a
// plain node:http server written here (not the SDK's own fake), and through the CLI bin.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'checkout-partner-sdk-smoke-'));
const run = (cmd, args, cwd = work) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', timeout: 180_000 });

try {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
  const tarball = join(work, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  const stray = files.filter((f) => !/^(dist\/|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(f));
  if (stray.length > 0) throw new Error(`the tarball holds files outside the allow-list: ${stray.join(', ')}`);
  console.log(`packed ${packed[0].filename}: ${files.length} files, ${packed[0].size} bytes`);

  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'smoke-app', private: true, type: 'module' }));
  // msw: the testing entry's handlers need it, as they would in a partner's test setup
  run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball, 'msw@3']);

  // A stand-in checkout service: token exchange and the order GET, nothing of the SDK's.
  const server = `
    const http = require('node:http');
    function start() {
      let exchanges = 0;
      const srv = http.createServer((req, res) => {
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && req.url === '/api/v1/partner-api/auth/token') {
          if (req.headers['x-partner-secret'] !== 'smoke-secret') { res.statusCode = 401; return res.end('{}'); }
          exchanges++;
          return res.end(JSON.stringify({ accessToken: 'smoke-token', tokenType: 'Bearer', expiresIn: 3600 }));
        }
        if (req.headers.authorization !== 'Bearer smoke-token') { res.statusCode = 401; return res.end('{}'); }
        if (req.url === '/api/v1/partner-api/orders/by-external-id/a%2Fb') {
          return res.end(JSON.stringify({ externalId: 'a/b', settlement: { status: 'Settled', tradeId: 't-1' }, extra: 1 }));
        }
        res.statusCode = 404; res.end('{"message":"no such order"}');
      });
      return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({ srv, url: 'http://127.0.0.1:' + srv.address().port, exchanges: () => exchanges })));
    }
  `;
  const body = (sdk, webhooks, testing, redis, postgres) => `
    const { srv, url, exchanges } = await start();
    try {
      const client = new ${sdk}.CheckoutClient({ baseUrl: url, partnerId: 'smoke', partnerSecret: 'smoke-secret' });
      const order = await client.getOrderByExternalId('a/b');
      if (order.settlement.status !== 'Settled' || order.extra !== 1) throw new Error('unexpected order ' + JSON.stringify(order));
      const missing = await client.getOrderByExternalId('nope').catch((e) => e);
      if (!(missing instanceof ${sdk}.NotFoundError) || !(missing instanceof ${sdk}.CheckoutError)) throw new Error('expected NotFoundError, got ' + missing);
      if (exchanges() !== 1) throw new Error('expected one exchange, got ' + exchanges());
      const sig = await ${webhooks}.signPayload('{"eventId":"e"}', 'whsec');
      if (!(await ${webhooks}.verifySignature({ payload: '{"eventId":"e"}', signature: sig, secret: 'whsec' }))) throw new Error('signature did not verify');
      const bad = (() => { try { ${webhooks}.parseEvent('nope'); } catch (e) { return e; } })();
      if (!(bad instanceof ${webhooks}.WebhookPayloadError) || !(bad instanceof ${sdk}.CheckoutError)) throw new Error('WebhookPayloadError is not a CheckoutError of the main entry');
      const handled = [];
      const handler = ${webhooks}.createWebhookHandler({
        secret: 'whsec',
        client,
        resolveOrderExternalId: () => 'a/b',
        onEvent: (context) => { handled.push(context); },
      });
      const body = JSON.stringify({ eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1' });
      const delivery = async (signature) => (await handler.handle(new Request('http://127.0.0.1/webhooks', {
        method: 'POST', body, headers: { 'content-type': 'application/json', 'x-provider-signature': signature },
      }))).status;
      const signature = await ${webhooks}.signPayload(body, 'whsec');
      const statuses = [await delivery(signature), await delivery(signature), await delivery('sha256=' + '0'.repeat(64))];
      if (statuses.join() !== '200,200,401') throw new Error('unexpected webhook statuses ' + statuses.join());
      if (handled.length !== 1 || handled[0].confirmed !== true || handled[0].order.settlement.status !== 'Settled') {
        throw new Error('the settled event was not handled once, confirmed: ' + JSON.stringify(handled));
      }
      await handler.drain();
      if (typeof ${testing}.createFakeCheckout !== 'function') throw new Error('testing entry lacks createFakeCheckout');
      if (typeof ${redis}.RedisEventStore !== 'function' || typeof ${redis}.RedisTokenStore !== 'function') throw new Error('redis entry lacks its stores');
      if (!(new ${redis}.RedisStoreError('x', { operation: 'get' }) instanceof ${sdk}.CheckoutError)) throw new Error('RedisStoreError is not a CheckoutError of the main entry');
      // loads without pg or postgres installed: the partner passes the pool in
      if (typeof ${postgres}.PostgresEventStore !== 'function') throw new Error('postgres entry lacks PostgresEventStore');
      if (!(new ${postgres}.PostgresStoreError('x', { operation: 'claim' }) instanceof ${sdk}.CheckoutError)) throw new Error('PostgresStoreError is not a CheckoutError of the main entry');
    } finally { srv.close(); }
  `;
  writeFileSync(
    join(work, 'smoke.mjs'),
    `import { createRequire } from 'node:module';
     const require = createRequire(import.meta.url);
     ${server}
     const sdk = await import('checkout-partner-sdk');
     const webhooks = await import('checkout-partner-sdk/webhooks');
     const testing = await import('checkout-partner-sdk/testing');
     const redis = await import('checkout-partner-sdk/redis');
     const postgres = await import('checkout-partner-sdk/postgres');
     ${body('sdk', 'webhooks', 'testing', 'redis', 'postgres')}
     console.log('esm ok');`,
  );
  writeFileSync(
    join(work, 'smoke.cjs'),
    `${server}
     const sdk = require('checkout-partner-sdk');
     const webhooks = require('checkout-partner-sdk/webhooks');
     const testing = require('checkout-partner-sdk/testing');
     const redis = require('checkout-partner-sdk/redis');
     const postgres = require('checkout-partner-sdk/postgres');
     require('checkout-partner-sdk/package.json');
     (async () => { ${body('sdk', 'webhooks', 'testing', 'redis', 'postgres')} console.log('cjs ok'); })().catch((e) => { console.error(e); process.exit(1); });`,
  );
  process.stdout.write(run('node', ['smoke.mjs']));
  process.stdout.write(run('node', ['smoke.cjs']));
  const help = run('npx', ['--no-install', 'checkout-partner', '--help']);
  if (!/checkout-partner/.test(help)) throw new Error('the CLI bin did not print its help');
  console.log('cli ok');
  console.log('smoke test passed');
} finally {
  rmSync(work, { recursive: true, force: true });
}
