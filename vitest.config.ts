import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

// Tests import the package by its public name, so they exercise what partners import.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^checkout-partner-sdk\/webhooks$/, replacement: src('webhooks/index.ts') },
      { find: /^checkout-partner-sdk\/redis$/, replacement: src('redis/index.ts') },
      { find: /^checkout-partner-sdk\/postgres$/, replacement: src('postgres/index.ts') },
      { find: /^checkout-partner-sdk\/tracker$/, replacement: src('tracker/index.ts') },
      { find: /^checkout-partner-sdk\/testing\/msw$/, replacement: src('testing/msw.ts') },
      { find: /^checkout-partner-sdk\/testing$/, replacement: src('testing/index.ts') },
      { find: /^checkout-partner-sdk$/, replacement: src('index.ts') },
    ],
  },
  test: {
    // examples/**/*.test.ts: the test files the README shows partners, run as written
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 20_000,
  },
});
