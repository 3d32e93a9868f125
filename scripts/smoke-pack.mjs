#!/usr/bin/env node
// Packs the package, installs the tarball into a fresh project in a temporary folder, and uses it
// there the way a partner would: through `import` and `require` of every entry point, against a
// plain node:http server written here (not the SDK's own fake), and through the CLI bin.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'checkout-partner-sdk-smoke-'));
const run = (cmd, args, cwd = work) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', timeout: 180_000 });

// What a partner's code touches in every entry, compiled with `strict` and `skipLibCheck: false`
// (so the declarations themselves are checked): a missing type is an error, not an implicit `any`.
const CONSUMER = `
import { CheckoutClient, CheckoutError, NotFoundError, type Order } from 'checkout-partner-sdk';
import { createWebhookHandler, parseEvent } from 'checkout-partner-sdk/webhooks';
import { RedisEventStore, RedisTokenStore, RedisStoreError } from 'checkout-partner-sdk/redis';
import { createFakeCheckout, deliverEvent, signEvent } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore, type StatusChange } from 'checkout-partner-sdk/tracker';
import { LeaseLostError, NUDGE_PRIORITY_MS, type ClaimResult, type EventStore } from 'checkout-partner-sdk/stores';

const client = new CheckoutClient({ baseUrl: 'http://127.0.0.1:1', partnerId: 'p', partnerSecret: 's' });
export async function read(id: string): Promise<string | undefined> {
  try {
    const order: Order = await client.getOrderByExternalId(id);
    return order.settlement?.status;
  } catch (error) {
    if (error instanceof NotFoundError) return error.requestId;
    if (error instanceof CheckoutError) return error.name;
    throw error;
  }
}
export const handler = createWebhookHandler({
  secret: 'whsec',
  client,
  resolveOrderExternalId: (event) => event.eventId,
  onEvent: (context) => { const id: string = context.event.eventId; void id; },
});
export const event = parseEvent('{}');
export const tracker = createStatusTracker({
  client,
  store: new MemoryStatusStore({ maxRecords: 10 }),
  onChange: (change: StatusChange) => { if (change.kind === 'order') { const s: string | undefined = change.record.settlement?.status ?? undefined; void s; } },
});
export const stores = [RedisEventStore, RedisTokenStore, RedisStoreError] as const;
export const fake = createFakeCheckout({ partners: [{ partnerId: 'p', partnerSecret: 's' }] });
export const helpers = [deliverEvent, signEvent] as const;
// a store of one's own, written against the /stores contracts
export class OwnEventStore implements EventStore {
  async claim(eventId: string): Promise<ClaimResult> { return { status: 'claimed', lease: eventId }; }
  async complete(eventId: string, lease: unknown): Promise<void> { if (lease !== eventId) throw new LeaseLostError(eventId); }
  async release(): Promise<void> {}
}
export const nudgePriorityMs: number = NUDGE_PRIORITY_MS;
`;
const MSW_CONSUMER = `
import { setupServer } from 'msw/node';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';

const fake = createFakeCheckout();
export const server = setupServer(...fake.handlers('https://checkout.test'), ...fakeCheckoutHandlers(fake, 'https://checkout.test'));
`;
// What a CommonJS project (`module: commonjs`, node10) compiles with msw installed: /testing must
// not pull msw's declarations in (msw 3's fail there, TS2307 on '@mswjs/interceptors/WebSocket').
const TESTING_CONSUMER = `
import { createFakeCheckout, deliverEvent, createEvent } from 'checkout-partner-sdk/testing';

const fake = createFakeCheckout({ partners: [{ partnerId: 'p', partnerSecret: 's' }] });
export const handlers: ReturnType<typeof fake.handlers> = fake.handlers('https://checkout.test');
export const delivered = deliverEvent('http://127.0.0.1:1/webhooks', createEvent('otc.trade.settled'), { secret: 'whsec' });
`;
// The msw entry in a CommonJS project: its own declarations are the SDK's; msw's may fail there.
const TESTING_MSW_CONSUMER = `
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';

export const handlers = fakeCheckoutHandlers(createFakeCheckout(), 'https://checkout.test');
`;
const loadTesting = (load) => `
  Promise.resolve(${load}('checkout-partner-sdk/testing')).then(async (testing) => {
    const fake = testing.createFakeCheckout({ partners: [{ partnerId: 'p', partnerSecret: 's' }] });
    const { url, close } = await fake.listen();
    try {
      const response = await fetch(url + '/api/v1/partner-api/orders/by-external-id/x');
      if (response.status !== 401) throw new Error('unexpected status ' + response.status);
    } finally { await close(); }
    console.log('${load === 'require' ? 'cjs' : 'esm'} /testing without msw ok');
  }).catch((e) => { console.error(e); process.exit(1); });`;

function typeCheck(name, options, tsc, code, { onlyMswErrors = false } = {}) {
  const dir = join(work, `types-${name}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'consumer.ts'), code);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
        typeRoots: [join(work, 'node_modules/@types')],
        ...options,
      },
      files: ['consumer.ts'],
    }),
  );
  try {
    run('node', [...tsc, '-p', dir]);
    if (onlyMswErrors) throw new Error(`the consumer compile "${name}" was expected to fail inside msw's own declarations, and passed`);
  } catch (error) {
    if (error.stdout === undefined) throw error;
    // msw publishes its subpath types through `exports` only: under node10 its own declarations
    // fail (TS2307). Accepted where asked, as long as no error is in the SDK's or the consumer's files.
    const located = error.stdout.split('\n').filter((line) => /^\S.*\(\d+,\d+\): error TS/.test(line));
    const outsideMsw = located.filter((line) => !/node_modules\/(msw|@mswjs)\//.test(line));
    if (!onlyMswErrors || located.length === 0 || outsideMsw.length > 0) {
      throw new Error(`the consumer compile "${name}" failed:\n${error.stdout}`);
    }
  }
}

/** The current TypeScript under node10 resolution, which it deprecates (6.x): what a CommonJS project on it has. */
const NODE10_CURRENT = { module: 'commonjs', moduleResolution: 'node', esModuleInterop: true, ignoreDeprecations: '6.0' };

function consumerCompile() {
  const current = [join(root, 'node_modules/typescript/bin/tsc')];
  const ts54 = [join(work, 'node_modules/typescript/bin/tsc')];
  // a CommonJS project: `module: commonjs` means `node10` resolution, which only sees typesVersions
  // (esModuleInterop as Nest's starter sets it: zod's own CJS declarations need it under skipLibCheck: false)
  typeCheck('ts54-commonjs', { module: 'commonjs', moduleResolution: 'node', esModuleInterop: true }, ts54, CONSUMER);
  typeCheck('nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }, current, CONSUMER);
  typeCheck('bundler', { module: 'esnext', moduleResolution: 'bundler' }, current, CONSUMER);
  console.log('consumer compile ok: TypeScript 5.4 commonjs (node10), current nodenext and bundler');
}

try {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
  const tarball = join(work, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  const stray = files.filter(
    (f) =>
      !/^(dist\/|docs\/[\w-]+\.md$|examples\/[\w/.-]+\.ts$|README\.md$|CONTRIBUTING\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(f),
  );
  if (stray.length > 0) throw new Error(`the tarball holds files outside the allow-list: ${stray.join(', ')}`);
  console.log(`packed ${packed[0].filename}: ${files.length} files, ${packed[0].size} bytes`);

  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'smoke-app', private: true, type: 'module' }));
  // First without msw: every entry, `/testing` included, must load and type-check without it.
  // TypeScript 5.4 is the oldest a partner's NestJS-style project (`module: commonjs`, so `node10`
  // resolution, which ignores `exports`) is likely to have; the current one checks nodenext and bundler.
  run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball, 'typescript@5.4', '@types/node@24']);
  consumerCompile();
  process.stdout.write(run('node', ['--input-type=module', '-e', loadTesting('await import')]));
  process.stdout.write(run('node', ['-e', loadTesting('require')]));
  const noMsw = run('node', [
    '--input-type=module',
    '-e',
    `
    const { createFakeCheckout } = await import('checkout-partner-sdk/testing');
    const error = await import('checkout-partner-sdk/testing/msw').then(() => undefined, (e) => e);
    const viaFake = (() => { try { createFakeCheckout().handlers('https://checkout.test'); } catch (e) { return e; } })();
    console.log(JSON.stringify([error?.message ?? 'loaded', viaFake?.name, viaFake?.message]));`,
  ]);
  const [entryMessage, fakeName, fakeMessage] = JSON.parse(noMsw);
  if (!/msw/.test(entryMessage)) throw new Error(`importing /testing/msw without msw: ${entryMessage}`);
  if (fakeName !== 'MissingPeerDependencyError' || !/npm install --save-dev msw/.test(fakeMessage)) {
    throw new Error(`fake.handlers() without msw should say to install it, said: ${fakeName}: ${fakeMessage}`);
  }
  console.log('testing kit without msw ok');

  // msw 2 satisfies the peer range: the msw entry type-checks against it, then msw 3 runs the rest.
  run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', 'msw@2']);
  typeCheck('msw2', { module: 'nodenext', moduleResolution: 'nodenext' }, [join(root, 'node_modules/typescript/bin/tsc')], MSW_CONSUMER);
  const ts54Cjs = { module: 'commonjs', moduleResolution: 'node', esModuleInterop: true };
  const ts54 = [join(work, 'node_modules/typescript/bin/tsc')];
  typeCheck('msw2-commonjs-testing', ts54Cjs, ts54, TESTING_CONSUMER);
  typeCheck('msw2-commonjs-testing-msw', { ...ts54Cjs, skipLibCheck: true }, ts54, TESTING_MSW_CONSUMER);
  console.log('testing/msw types against msw 2 ok (nodenext; /testing and /testing/msw under commonjs)');
  // (msw 3 asks for TypeScript >= 5.9 as an optional peer: the 5.4 compile is done, so it goes)
  run('npm', ['uninstall', '--no-audit', '--no-fund', '--no-package-lock', 'typescript']);
  run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', 'msw@3']);
  const current = [join(root, 'node_modules/typescript/bin/tsc')];
  typeCheck('msw3', { module: 'nodenext', moduleResolution: 'nodenext' }, current, MSW_CONSUMER);
  // /testing under commonjs with msw 3 installed: nothing of msw's is loaded, so it compiles in full
  typeCheck('msw3-commonjs-testing', NODE10_CURRENT, current, TESTING_CONSUMER);
  // /testing/msw under commonjs: msw 3's own declarations fail there (not the SDK's); with
  // skipLibCheck (NestJS's default) the entry compiles
  typeCheck('msw3-commonjs-testing-msw', NODE10_CURRENT, current, TESTING_MSW_CONSUMER, { onlyMswErrors: true });
  typeCheck('msw3-commonjs-testing-msw-skiplib', { ...NODE10_CURRENT, skipLibCheck: true }, current, TESTING_MSW_CONSUMER);
  console.log('testing types against msw 3 ok (nodenext; /testing under commonjs; /testing/msw under commonjs with skipLibCheck)');

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
  const body = (sdk, webhooks, testing, redis, postgres, testingMsw) => `
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
      // msw is installed now: fake.handlers() loads it itself, and the testing/msw entry imports it
      if (${testing}.createFakeCheckout().handlers('https://checkout.test').length !== 1) throw new Error('fake.handlers() gave no msw handler');
      if (${testingMsw}.fakeCheckoutHandlers(${testing}.createFakeCheckout(), 'https://checkout.test').length !== 1) throw new Error('testing/msw gave no msw handler');
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
     const testingMsw = await import('checkout-partner-sdk/testing/msw');
     const trackerEntryCheck = (tracker) => {
       if (typeof tracker.createStatusTracker !== 'function' || typeof tracker.MemoryStatusStore !== 'function') throw new Error('tracker entry lacks createStatusTracker / MemoryStatusStore');
       if (!(new tracker.StatusStoreFullError(1) instanceof sdk.CheckoutError)) throw new Error('StatusStoreFullError is not a CheckoutError of the main entry');
     };
     trackerEntryCheck(await import('checkout-partner-sdk/tracker'));
     if (typeof redis.RedisStatusStore !== 'function') throw new Error('redis entry lacks RedisStatusStore');
     const storesEntryCheck = (stores) => {
       if (!(new stores.LeaseLostError('e') instanceof sdk.CheckoutError)) throw new Error('LeaseLostError of the stores entry is not a CheckoutError of the main entry');
       if (stores.NUDGE_PRIORITY_MS !== 86_400_000) throw new Error('stores entry lacks NUDGE_PRIORITY_MS');
     };
     storesEntryCheck(await import('checkout-partner-sdk/stores'));
     // both builds in one process (the dual package hazard): one error tree for instanceof
     const cjs = require('checkout-partner-sdk');
     if (cjs.NotFoundError === sdk.NotFoundError) throw new Error('expected two builds');
     const [fromCjs, fromEsm] = [new cjs.NotFoundError('x', { status: 404 }), new sdk.NotFoundError('x', { status: 404 })];
     if (!(fromCjs instanceof sdk.NotFoundError) || !(fromCjs instanceof sdk.CheckoutError) || !(fromEsm instanceof cjs.ApiError)) throw new Error('instanceof fails across the ESM and CJS builds');
     if (fromCjs instanceof sdk.RateLimitError) throw new Error('a NotFoundError passed for a RateLimitError');
     const cjsWebhookError = (() => { try { require('checkout-partner-sdk/webhooks').parseEvent('nope'); } catch (e) { return e; } })();
     if (!(cjsWebhookError instanceof webhooks.WebhookPayloadError) || !(cjsWebhookError instanceof sdk.CheckoutError)) throw new Error('instanceof fails across the webhooks builds');
     ${body('sdk', 'webhooks', 'testing', 'redis', 'postgres', 'testingMsw')}
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
     const testingMsw = require('checkout-partner-sdk/testing/msw');
     require('checkout-partner-sdk/package.json');
     const trackerEntryCheck = (tracker) => {
       if (typeof tracker.createStatusTracker !== 'function' || typeof tracker.MemoryStatusStore !== 'function') throw new Error('tracker entry lacks createStatusTracker / MemoryStatusStore');
       if (!(new tracker.StatusStoreFullError(1) instanceof sdk.CheckoutError)) throw new Error('StatusStoreFullError is not a CheckoutError of the main entry');
     };
     trackerEntryCheck(require('checkout-partner-sdk/tracker'));
     if (typeof redis.RedisStatusStore !== 'function') throw new Error('redis entry lacks RedisStatusStore');
     const storesEntryCheck = (stores) => {
       if (!(new stores.LeaseLostError('e') instanceof sdk.CheckoutError)) throw new Error('LeaseLostError of the stores entry is not a CheckoutError of the main entry');
       if (stores.NUDGE_PRIORITY_MS !== 86_400_000) throw new Error('stores entry lacks NUDGE_PRIORITY_MS');
     };
     storesEntryCheck(require('checkout-partner-sdk/stores'));
     (async () => { ${body('sdk', 'webhooks', 'testing', 'redis', 'postgres', 'testingMsw')} console.log('cjs ok'); })().catch((e) => { console.error(e); process.exit(1); });`,
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
