import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { provisionNode, VERSIONS } from '../../scripts/runtimes/provision.js';
import { ROOT, spawn, toolProject } from './packed.js';

// The packed SDK under the real Jest 30, in fresh projects: its default CommonJS mode (ts-jest and
// babel-jest, no flags), CommonJS with Node's require(esm) (--experimental-vm-modules), and its ESM
// mode; msw 2 and msw 3; the real-server mode; on Node 24 (this process) and Node 22.
const JEST = [
  'jest@30',
  'ts-jest@29',
  'babel-jest@30',
  '@babel/core@8',
  '@babel/preset-env@8',
  '@babel/preset-typescript@8',
  'typescript@5',
  '@types/node@24',
  '@types/jest@30',
];
const NODE24 = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'checkout-jest-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The Jest suites of docs/testing-jest.md (fences tagged jest-cjs, jest-cjs-msw, jest-esm), run as written. */
function docSuite(tag: string): string {
  const markdown = readFileSync(join(ROOT, 'docs', 'testing-jest.md'), 'utf8');
  const match = new RegExp(`^\`\`\`(?:ts|js) ${tag}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(markdown);
  if (match?.[1] === undefined) throw new Error(`docs/testing-jest.md has no \`\`\` ${tag} block`);
  return match[1];
}

const PARTNER = `{ partnerId: 'p-1', partnerSecret: 's-1' }`;

/** A CommonJS suite (TypeScript, compiled to require by ts-jest or babel-jest): every entry, the real server. */
const CJS_EVERY_ENTRY = `
import { CheckoutClient, NotFoundError, CheckoutError } from 'checkout-partner-sdk';
import { createWebhookHandler, parseEvent } from 'checkout-partner-sdk/webhooks';
import { RedisEventStore } from 'checkout-partner-sdk/redis';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { LeaseLostError } from 'checkout-partner-sdk/stores';
import { createFakeCheckout, MissingPeerDependencyError } from 'checkout-partner-sdk/testing';

const fake = createFakeCheckout({ partners: [${PARTNER}] });
fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });

test('every entry loads through require', () => {
  for (const value of [createWebhookHandler, parseEvent, RedisEventStore, PostgresEventStore, createStatusTracker, MemoryStatusStore, LeaseLostError, MissingPeerDependencyError]) {
    expect(typeof value).toBe('function');
  }
});

test('the real-server mode: a client reads from fake.listen()', async () => {
  const { url, close } = await fake.listen();
  try {
    const client = new CheckoutClient({ baseUrl: url, partnerId: 'p-1', partnerSecret: 's-1' });
    expect((await client.getOrderByExternalId('o-1')).settlement?.status).toBe('Pending');
    const missing = await client.getOrderByExternalId('nope').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toBeInstanceOf(CheckoutError);
  } finally {
    await close();
  }
});
`;

/** msw behind fake.handlers(), from a CommonJS suite. */
const CJS_MSW = `
import { CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';
import { setupServer } from 'msw/node';

const fake = createFakeCheckout({ partners: [${PARTNER}] });
fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
const server = setupServer(...fake.handlers('https://checkout.test'), ...fakeCheckoutHandlers(fake, 'https://other.test'));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

test.each(['https://checkout.test', 'https://other.test'])('a client reads from the fake behind msw at %s', async (baseUrl) => {
  const client = new CheckoutClient({ baseUrl, partnerId: 'p-1', partnerSecret: 's-1' });
  expect((await client.getOrderByExternalId('o-1')).settlement?.status).toBe('Pending');
});
`;

/** fake.handlers() where Jest's require cannot load msw: the error names the cause and the fix. */
const CJS_MSW_UNLOADABLE = `
import { createFakeCheckout, MissingPeerDependencyError } from 'checkout-partner-sdk/testing';

test('fake.handlers() says why msw cannot be loaded', () => {
  const error = (() => { try { createFakeCheckout().handlers('https://checkout.test'); } catch (e) { return e; } })();
  expect(error).toBeInstanceOf(MissingPeerDependencyError);
  expect((error as Error).message).toMatch(/found msw but cannot load it: .*ES module/);
  expect((error as Error).message).toMatch(/checkout-partner-sdk\\/testing\\/msw/);
  expect((error as Error).message).toMatch(/--experimental-vm-modules/);
  expect((error as Error).message).not.toMatch(/not installed/);
});
`;

/** Jest's ESM mode (plain .mjs, no transform). */
const ESM_SUITE = (handlersWork: boolean) => `
import { CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout, MissingPeerDependencyError } from 'checkout-partner-sdk/testing';
import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';
import { setupServer } from 'msw/node';

const fake = createFakeCheckout({ partners: [${PARTNER}] });
fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
const read = async (baseUrl) => (await new CheckoutClient({ baseUrl, partnerId: 'p-1', partnerSecret: 's-1' }).getOrderByExternalId('o-1')).settlement?.status;

test('checkout-partner-sdk/testing/msw behind setupServer', async () => {
  const server = setupServer(...fakeCheckoutHandlers(fake, 'https://checkout.test'));
  server.listen({ onUnhandledRequest: 'error' });
  try { expect(await read('https://checkout.test')).toBe('Pending'); } finally { server.close(); }
});

test('fake.handlers()', async () => {
  ${
    handlersWork
      ? `const server = setupServer(...fake.handlers('https://checkout.test'));
  server.listen({ onUnhandledRequest: 'error' });
  try { expect(await read('https://checkout.test')).toBe('Pending'); } finally { server.close(); }`
      : `const error = (() => { try { fake.handlers('https://checkout.test'); } catch (e) { return e; } })();
  expect(error).toBeInstanceOf(MissingPeerDependencyError);
  expect(error.message).toMatch(/found msw but cannot load it: .*ES module/);
  expect(error.message).toMatch(/import fakeCheckoutHandlers from 'checkout-partner-sdk\\/testing\\/msw'/i);`
  }
});

test('the real-server mode', async () => {
  const { url, close } = await fake.listen();
  try { expect(await read(url)).toBe('Pending'); } finally { await close(); }
});
`;

const TS_JEST = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { tsconfig: { module: 'commonjs', target: 'es2022', esModuleInterop: true, types: ['node', 'jest'], isolatedModules: true } },
    ],
  },
};
/** ts-jest with its type check on (no isolatedModules): the docs' suites compile as a partner's would. */
const TS_JEST_CHECKED = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'nodenext', target: 'es2022', strict: true, types: ['node', 'jest'] } }] },
};
const BABEL_JEST = { testEnvironment: 'node', transform: { '^.+\\.ts$': 'babel-jest' } };
const ESM = { testEnvironment: 'node', transform: {}, testMatch: ['**/*.test.mjs'] };

function project(msw: 'msw@2' | 'msw@3'): string {
  const dir = toolProject(join(work, msw.replace('@', '')), [...JEST, msw]);
  mkdirSync(join(dir, 'suites'));
  writeFileSync(
    join(dir, 'babel.config.cjs'),
    `module.exports = { presets: [['@babel/preset-env', { targets: { node: 'current' } }], '@babel/preset-typescript'] };`,
  );
  writeFileSync(join(dir, 'suites', 'every-entry.test.ts'), CJS_EVERY_ENTRY);
  writeFileSync(join(dir, 'suites', 'msw.test.ts'), CJS_MSW);
  writeFileSync(join(dir, 'suites', 'msw-unloadable.test.ts'), CJS_MSW_UNLOADABLE);
  writeFileSync(join(dir, 'suites', 'esm.test.mjs'), ESM_SUITE(true));
  writeFileSync(join(dir, 'suites', 'esm-node22.test.mjs'), ESM_SUITE(false));
  writeFileSync(join(dir, 'suites', 'doc-cjs.test.ts'), docSuite('jest-cjs'));
  writeFileSync(join(dir, 'suites', 'doc-cjs-msw.test.ts'), docSuite('jest-cjs-msw'));
  writeFileSync(join(dir, 'suites', 'doc-esm.test.mjs'), docSuite('jest-esm'));
  return dir;
}

/** Runs Jest on one suite; passes when every test in it passed, else fails with Jest's output. */
function jest(
  dir: string,
  { node = NODE24, config, suite, vmModules = false }: { node?: string; config: object; suite: string; vmModules?: boolean },
): string {
  const result = spawn(
    node,
    [
      ...(vmModules ? ['--experimental-vm-modules', '--no-warnings'] : []),
      'node_modules/jest/bin/jest.js',
      '--ci',
      '--no-cache',
      '--config',
      JSON.stringify({ ...config, rootDir: dir }),
      `suites/${suite}`,
    ],
    { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' }, timeoutMs: 180_000 },
  );
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0 || !/Tests:\s+\d+ passed, \d+ total/.test(output) || (output.split('Tests:')[1] ?? '').includes('failed')) {
    throw new Error(`jest ${suite} exited ${result.status}:\n${output.slice(-4000)}`);
  }
  // no line of the SDK's own (they begin with its name and a space or a colon; its paths go on with / or -)
  expect(output.split('\n').filter((line) => /checkout-partner-sdk[ :]/.test(line))).toEqual([]);
  return output;
}

describe.each(['msw@2', 'msw@3'] as const)('Jest 30 with %s, from the packed tarball', (msw) => {
  let dir = '';
  const node22 = () => provisionNode(VERSIONS.node22);

  it('sets up the project', () => {
    dir = project(msw);
  }, 900_000);

  it('default CommonJS mode, ts-jest and babel-jest, Node 24 and 22: every entry loads, the real server answers', () => {
    for (const node of [NODE24, node22()]) {
      for (const config of [TS_JEST, BABEL_JEST]) {
        expect(jest(dir, { node, config, suite: 'every-entry.test.ts' })).toMatch(/Tests:\s+2 passed, 2 total/);
      }
    }
  }, 300_000);

  it('CommonJS mode: fake.handlers() names why Jest cannot load msw (an ES module) and what to do', () => {
    expect(jest(dir, { config: TS_JEST, suite: 'msw-unloadable.test.ts' })).toMatch(/Tests:\s+1 passed/);
  }, 120_000);

  it('CommonJS mode on Node 24.9+ with --experimental-vm-modules: msw behind fake.handlers() and /testing/msw', () => {
    for (const config of [TS_JEST, BABEL_JEST]) {
      expect(jest(dir, { config, suite: 'msw.test.ts', vmModules: true })).toMatch(/Tests:\s+2 passed, 2 total/);
    }
  }, 300_000);

  it('ESM mode on Node 24: fake.handlers(), /testing/msw and the real server', () => {
    expect(jest(dir, { config: ESM, suite: 'esm.test.mjs', vmModules: true })).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 120_000);

  it("docs/testing-jest.md's Jest suites, as written: CommonJS (Node 22 and 24), msw in CommonJS (Node 24), ESM (Node 22 and 24)", () => {
    for (const node of [NODE24, node22()]) {
      for (const config of [TS_JEST_CHECKED, BABEL_JEST])
        expect(jest(dir, { node, config, suite: 'doc-cjs.test.ts' })).toMatch(/Tests:\s+1 passed, 1 total/);
      expect(jest(dir, { node, config: ESM, suite: 'doc-esm.test.mjs', vmModules: true })).toMatch(/Tests:\s+1 passed, 1 total/);
    }
    for (const config of [TS_JEST_CHECKED, BABEL_JEST]) {
      expect(jest(dir, { config, suite: 'doc-cjs-msw.test.ts', vmModules: true })).toMatch(/Tests:\s+1 passed, 1 total/);
    }
  }, 400_000);

  it('ESM mode on Node 22: /testing/msw and the real server work; fake.handlers() names the cause', () => {
    expect(jest(dir, { node: node22(), config: ESM, suite: 'esm-node22.test.mjs', vmModules: true })).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 120_000);
});
