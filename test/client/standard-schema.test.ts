import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { CheckoutClient, ResponseValidationError, type StandardSchemaV1 } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout } from './helpers.js';

// request() takes any Standard Schema v1 validator besides zod: synchronous or not, its value is
// what the call resolves with, its issues what the ResponseValidationError carries.

const { server } = mockCheckout();
const newClient = () => new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET });

interface Plan {
  plan: string;
}

/** A validator of `{ plan: string }`, answering at once or (`later`) in a promise; its issue's path in `{ key }` segments. */
function planSchema(later: boolean): StandardSchemaV1<unknown, Plan> {
  const check = (value: unknown) =>
    typeof (value as Plan | null)?.plan === 'string'
      ? { value: { plan: (value as Plan).plan.toUpperCase() } }
      : { issues: [{ message: 'plan must be a string', path: [{ key: 'plan' }] }] };
  return { '~standard': { version: 1, vendor: 'test', validate: (value) => (later ? Promise.resolve(check(value)) : check(value)) } };
}

describe.each([
  ['synchronous', false],
  ['asynchronous', true],
])('request() with a %s Standard Schema validator', (_name, later) => {
  it("resolves with the validator's value", async () => {
    server.use(http.get(`${API}/plan`, () => HttpResponse.json({ plan: 'gold' })));
    await expect(newClient().request('GET', '/plan', { schema: planSchema(later) })).resolves.toEqual({ plan: 'GOLD' });
  });

  it('rejects with a ResponseValidationError holding its issues, paths as plain keys', async () => {
    server.use(http.get(`${API}/plan`, () => HttpResponse.json({ plan: 7 })));
    const error = await newClient()
      .request('GET', '/plan', { schema: planSchema(later) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([{ message: 'plan must be a string', path: ['plan'] }]);
  });
});
