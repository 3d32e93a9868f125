import { describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';

// rateLimit and retryBudget are checked like every other option: a TypeError naming the bad one.

const valid = { baseUrl: 'http://127.0.0.1:9', partnerId: 'p-1', partnerSecret: 's' };

describe('load control options', () => {
  it.each([
    [{ rateLimit: 5 }, /^rateLimit must be an object/],
    [{ rateLimit: null }, /^rateLimit must be an object/],
    [{ rateLimit: { concurrency: 0 } }, /^rateLimit\.concurrency must be a whole number of at least 1, got 0/],
    [{ rateLimit: { concurrency: 1.5 } }, /^rateLimit\.concurrency/],
    [{ rateLimit: { concurrency: '8' } }, /^rateLimit\.concurrency/],
    [{ rateLimit: { concurrency: Number.POSITIVE_INFINITY } }, /^rateLimit\.concurrency/],
    [{ rateLimit: { maxQueue: 0 } }, /^rateLimit\.maxQueue must be a whole number of at least 1, got 0/],
    [{ rateLimit: { maxQueue: 2.5 } }, /^rateLimit\.maxQueue/],
    [{ rateLimit: { maxQueue: '100' } }, /^rateLimit\.maxQueue/],
    [{ rateLimit: { requestsPerSecond: 0 } }, /^rateLimit\.requestsPerSecond must be a number above 0/],
    [{ rateLimit: { requestsPerSecond: -1 } }, /^rateLimit\.requestsPerSecond/],
    [{ rateLimit: { requestsPerSecond: Number.NaN } }, /^rateLimit\.requestsPerSecond/],
    [{ rateLimit: { requestsPerSecond: 10_001 } }, /^rateLimit\.requestsPerSecond .*at most 10000/],
    [{ retryBudget: 'yes' }, /^retryBudget must be true, false or/],
    [{ retryBudget: null }, /^retryBudget must be/],
    [{ retryBudget: { capacity: 0 } }, /^retryBudget\.capacity/],
    [{ retryBudget: { retryCost: -5 } }, /^retryBudget\.retryCost/],
    [{ retryBudget: { timeoutCost: 2.5 } }, /^retryBudget\.timeoutCost/],
  ])('rejects %o with a TypeError naming the option', (options, message) => {
    expect(() => new CheckoutClient({ ...valid, ...(options as object) })).toThrow(TypeError);
    expect(() => new CheckoutClient({ ...valid, ...(options as object) })).toThrow(message);
  });

  it.each([
    {},
    { rateLimit: {} },
    { rateLimit: { concurrency: 1, requestsPerSecond: 0.5 } },
    { rateLimit: { maxQueue: 1 } },
    { rateLimit: { concurrency: 10_000, requestsPerSecond: 10_000 } },
    { retryBudget: false },
    { retryBudget: true },
    { retryBudget: { capacity: 10, retryCost: 10, timeoutCost: 10 } },
    { retryBudget: { capacity: 5 } },
  ])('accepts %o', (options) => {
    expect(() => new CheckoutClient({ ...valid, ...options })).not.toThrow();
  });
});
