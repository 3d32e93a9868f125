import { readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, spawn, toolProject } from './packed.js';

// docs/testing.md's complete vitest file, as written, in a fresh project with the packed SDK and
// each msw the peer range (>=2) admits: tsc accepts it, vitest passes it, and its unhandled-request
// guard is on (msw 2 silently ignores msw 3's onUnhandledFrame, and msw 3 msw 2's onUnhandledRequest).

const markdown = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');
const sample = /```ts\n(\/\/ A complete vitest file for a webhook receiver[\s\S]*?)\n```\n/.exec(markdown)?.[1];
const guardLine = sample?.split('\n').find((line) => line.startsWith('const failUnhandled = '));

// the sample's own guard, against a real loopback server no msw handler serves: with the guard on,
// msw fails the request and the server never sees it
const GUARD_TEST = `import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { expect, it } from 'vitest';

${guardLine ?? ''}

it('fails a request that no handler answers', async () => {
  let seen = 0;
  const server = http.createServer((_req, res) => {
    seen += 1;
    res.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const msw = setupServer();
  msw.listen(failUnhandled);
  try {
    const url = \`http://127.0.0.1:\${(server.address() as AddressInfo).port}/unhandled\`;
    const outcome = await fetch(url).then((response) => response.status, (error: unknown) => error);
    expect(outcome).toBeInstanceOf(Error);
    expect(seen).toBe(0);
  } finally {
    msw.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
`;

const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2023',
    lib: ['es2023', 'dom'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ['*.test.ts'],
};

const work = mkdtempSync(join(tmpdir(), 'checkout-msw-versions-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("docs/testing.md's vitest file", () => {
  it('has the guard line this test runs', () => {
    expect(guardLine).toMatch(/onUnhandledFrame: 'error'/);
    expect(guardLine).toMatch(/onUnhandledRequest: 'error'/);
  });

  it.each(['msw@2', 'msw@3'] as const)(
    'type-checks and passes with %s, its unhandled-request guard on',
    (msw) => {
      const dir = toolProject(join(work, msw.replace('@', '')), ['typescript@6', '@types/node@24', 'vitest@5', msw], { type: 'module' });
      writeFileSync(join(dir, 'webhook-receiver.test.ts'), `${sample ?? ''}\n`);
      writeFileSync(join(dir, 'guard.test.ts'), GUARD_TEST);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
      const tsc = spawn(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, timeoutMs: 180_000 });
      expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
      expect(tsc.status).toBe(0);
      const vitest = spawn(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir], {
        cwd: dir,
        env: { ...process.env, CI: 'true', NODE_ENV: 'test', NO_COLOR: '1', FORCE_COLOR: '0' },
        timeoutMs: 300_000,
      });
      const output = `${vitest.stdout}${vitest.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
      expect(output, output).toMatch(/Test Files\s+2 passed/);
      expect(vitest.status, output).toBe(0);
    },
    900_000,
  );
});
