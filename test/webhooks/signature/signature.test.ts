import { createHmac } from 'node:crypto';
// on Node the package name resolves to the node:crypto build (the `node` export condition, as vitest aliases it)
import * as node from 'checkout-partner-sdk/webhooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// the Web Crypto build every other runtime (Workers, Deno, Bun, browsers) loads
import * as web from '../../../src/webhooks/index.js';

const expectedHex = (payload: string | Uint8Array, secret: string) => createHmac('sha256', secret).update(payload).digest('hex');

// a usable secret has a character other than whitespace (a blank one is refused, see secret-whitespace.test.ts)
const secretArb = fc.string({ minLength: 1, maxLength: 40 }).filter((secret) => secret.trim() !== '');
const bodyArb = fc.oneof(fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }));

describe.each([
  ['Web Crypto (index.ts)', web],
  ['node:crypto (index.node.ts)', node],
])('%s', (_name, { signPayload, verifySignature }) => {
  it('signs as sha256=<lowercase hex HMAC-SHA256 of the raw bytes>', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, async (body, secret) => {
        expect(await signPayload(body, secret)).toBe(`sha256=${expectedHex(body, secret)}`);
      }),
      { numRuns: 100 },
    );
  });

  it('verifies its own signature with and without the sha256= prefix, for strings, Uint8Array and ArrayBuffer', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, async (body, secret) => {
        const header = await signPayload(body, secret);
        const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
        const buffer = bytes.slice().buffer;
        for (const payload of [body, bytes, buffer]) {
          expect(await verifySignature({ payload, signature: header, secret })).toBe(true);
          expect(await verifySignature({ payload, signature: header.slice('sha256='.length), secret })).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('rejects any change to the body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        secretArb,
        async (body, at, flip, secret) => {
          const signature = await signPayload(body, secret);
          const changed = body.slice();
          const index = at % changed.length;
          changed[index] = (changed[index]! ^ flip) & 0xff;
          expect(await verifySignature({ payload: changed, signature, secret })).toBe(false);
          const longer = new Uint8Array([...body, 0]);
          expect(await verifySignature({ payload: longer, signature, secret })).toBe(false);
          expect(await verifySignature({ payload: body.subarray(1), signature, secret })).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rejects any change to the signature', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 100 }),
        secretArb,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 3 }),
        async (body, secret, at, insert) => {
          const signature = await signPayload(body, secret);
          const index = at % signature.length;
          const replaced = signature.slice(0, index) + insert + signature.slice(index + 1);
          fc.pre(replaced !== signature && replaced !== signature.slice(7));
          expect(await verifySignature({ payload: body, signature: replaced, secret })).toBe(false);
          expect(await verifySignature({ payload: body, signature: signature.toUpperCase(), secret })).toBe(false);
          expect(await verifySignature({ payload: body, signature: `${signature} `, secret })).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rejects any other secret', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 100 }), secretArb, secretArb, async (body, secret, other) => {
        fc.pre(secret !== other);
        const signature = await signPayload(body, secret);
        expect(await verifySignature({ payload: body, signature, secret: other })).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('accepts a signature under any secret of a rotation list, and none outside it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 100 }),
        fc.uniqueArray(secretArb, { minLength: 2, maxLength: 5 }),
        fc.nat(),
        async (body, secrets, pick) => {
          const signer = secrets[pick % secrets.length]!;
          const signature = await signPayload(body, signer);
          expect(await verifySignature({ payload: body, signature, secret: secrets })).toBe(true);
          const without = secrets.filter((s) => s !== signer);
          expect(await verifySignature({ payload: body, signature, secret: without })).toBe(false);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('verifies false for a missing or malformed signature', async () => {
    const body = '{"eventId":"e"}';
    const hex = expectedHex(body, 's');
    for (const signature of [
      null,
      undefined,
      '',
      'sha256=',
      hex.slice(0, 63),
      `${hex}0`,
      `sha1=${hex}`,
      `SHA256=${hex}`,
      `sha256=${hex.slice(0, 62)}zz`,
      `sha256= ${hex}`,
      `sha256=sha256=${hex}`,
      `sha256:${hex}`,
      `Sha256=${hex}`,
      ` ${hex}`,
      `${hex}\n`,
      `${hex.slice(0, 63)}g`,
      `${hex.slice(0, 62)}0x`,
      `${hex.slice(0, 63)}A`,
      `sha256=${hex.slice(0, 63)}`,
      `sha256=${hex}0`,
      hex.slice(0, 32),
      hex + hex,
    ]) {
      expect(await verifySignature({ payload: body, signature, secret: 's' })).toBe(false);
    }
    expect(await verifySignature({ payload: body, signature: hex, secret: 's' })).toBe(true);
  });

  it('never throws for any signature string, and accepts only the exact lowercase hex MAC', async () => {
    const body = '{"eventId":"e"}';
    const hex = expectedHex(body, 's');
    const hexish = fc.string({ unit: fc.constantFrom(...Array.from('0123456789abcdefABCDEFgx= sha256')), minLength: 60, maxLength: 75 });
    const nearMiss = fc
      .tuple(fc.nat(63), fc.constantFrom(...Array.from('0123456789abcdefABCDEFg ')))
      .map(([at, c]) => hex.slice(0, at) + c + hex.slice(at + 1));
    await fc.assert(
      fc.asyncProperty(fc.oneof(hexish, nearMiss, fc.string({ unit: 'binary', maxLength: 80 })), fc.boolean(), async (value, prefixed) => {
        const signature = prefixed ? `sha256=${value}` : value;
        const exact = value === hex;
        expect(await verifySignature({ payload: body, signature, secret: 's' })).toBe(exact);
        expect(await verifySignature({ payload: body, signature, secret: ['other', 's'] })).toBe(exact);
      }),
      { numRuns: 300 },
    );
  });

  it('hashes a string payload as UTF-8, lone surrogates as U+FFFD like TextEncoder', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 100 }), secretArb, async (body, secret) => {
        const bytes = new TextEncoder().encode(body);
        const signature = await signPayload(body, secret);
        expect(signature).toBe(`sha256=${expectedHex(bytes, secret)}`);
        expect(await verifySignature({ payload: body, signature, secret })).toBe(true);
        expect(await verifySignature({ payload: bytes, signature, secret })).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('reads a rotation list as it was at the call, whatever the caller does to it afterwards', async () => {
    const body = '{"eventId":"e"}';
    const signature = await signPayload(body, 'second');
    const list: unknown[] = ['first', 'second'];
    const pending = verifySignature({ payload: body, signature, secret: list as string[] });
    list.length = 0;
    list.push(7, 'other');
    await expect(pending).resolves.toBe(true);
    expect(list).toEqual([7, 'other']);
    expect(Object.isFrozen(list)).toBe(false);
  });

  it('throws TypeError for arguments of the wrong type, without showing the secret', async () => {
    await expect(verifySignature(undefined as never)).rejects.toThrow(TypeError);
    await expect(verifySignature({ payload: 42 as never, signature: 'x', secret: 's' })).rejects.toThrow(/payload must be/);
    await expect(verifySignature({ payload: 'x', signature: 42 as never, secret: 's' })).rejects.toThrow(/signature must be/);
    await expect(verifySignature({ payload: 'x', signature: 'x', secret: '' })).rejects.toThrow(/secret must be/);
    await expect(verifySignature({ payload: 'x', signature: 'x', secret: [] })).rejects.toThrow(TypeError);
    await expect(verifySignature({ payload: 'x', signature: 'x', secret: ['ok-secret', 7] as never })).rejects.toThrow(/secret\[1\]/);
    // every secret is checked, even when an earlier one matches
    const good = await signPayload('x', 'ok-secret');
    await expect(verifySignature({ payload: 'x', signature: good, secret: ['ok-secret', ''] })).rejects.toThrow(/secret\[1\]/);
    await expect(verifySignature({ payload: 'x', signature: good, secret: 'ok-secret' })).resolves.toBe(true);
    await expect(verifySignature({ payload: 'x', signature: null, secret: 42 as never })).rejects.toThrow(/secret must be/);
    await expect(
      verifySignature({ payload: new DataView(new ArrayBuffer(1)) as never, signature: good, secret: 'ok-secret' }),
    ).resolves.toBe(false);
    await expect(verifySignature({ payload: new SharedArrayBuffer(1) as never, signature: good, secret: 'ok-secret' })).rejects.toThrow(
      /payload must be/,
    );
    await expect(signPayload({} as never, 's')).rejects.toThrow(TypeError);
    await expect(signPayload('x', '')).rejects.toThrow(TypeError);
    await expect(signPayload('x', ['a'] as never)).rejects.toThrow(TypeError);
    const error = await verifySignature({ payload: 'x', signature: 'x', secret: ['top-secret-value', ''] }).catch((e: unknown) => e);
    expect(String(error)).not.toContain('top-secret-value');
  });

  it('signs a Buffer view (a slice of a larger pool) by its own bytes only', async () => {
    const pool = Buffer.from('xxxx{"eventId":"e"}yyyy');
    const view = pool.subarray(4, pool.length - 4);
    expect(await signPayload(view, 'k')).toBe(`sha256=${expectedHex('{"eventId":"e"}', 'k')}`);
  });
});

it('both implementations agree', async () => {
  await fc.assert(
    fc.asyncProperty(bodyArb, secretArb, async (body, secret) => {
      const signature = await web.signPayload(body, secret);
      expect(await node.signPayload(body, secret)).toBe(signature);
      expect(await node.verifySignature({ payload: body, signature, secret })).toBe(true);
    }),
    { numRuns: 50 },
  );
});

it('keeps working past the key cache bound (many distinct secrets)', async () => {
  for (let i = 0; i < 150; i += 1) {
    const secret = `rotating-${i}`;
    const signature = await web.signPayload('body', secret);
    expect(await web.verifySignature({ payload: 'body', signature, secret })).toBe(true);
    expect(await node.verifySignature({ payload: 'body', signature, secret })).toBe(true);
  }
});

it('the node entry exports the same names as the neutral one', () => {
  expect(Object.keys(node).sort()).toEqual(Object.keys(web).sort());
});

it('keeps a key in use while many other secrets pass through the bounded cache', async () => {
  const { vi } = await import('vitest');
  const spy = vi.spyOn(crypto.subtle, 'importKey');
  const importsOf = (secret: string) => spy.mock.calls.filter(([, raw]) => new TextDecoder().decode(raw as Uint8Array) === secret).length;
  try {
    const run = Math.random();
    const hot = `hot-${run}`;
    const hotSignature = await web.signPayload('body', hot);
    for (let i = 0; i < 200; i += 1) {
      const passing = `passing-${run}-${i}`;
      expect(await web.verifySignature({ payload: 'body', signature: await web.signPayload('body', passing), secret: passing })).toBe(true);
      expect(await web.verifySignature({ payload: 'body', signature: hotSignature, secret: hot })).toBe(true);
    }
    expect(importsOf(hot)).toBe(1);
    // the cache is bounded: a secret unused since 199 others came and went is imported again
    const first = `passing-${run}-0`;
    expect(importsOf(first)).toBe(1);
    await web.signPayload('body', first);
    expect(importsOf(first)).toBe(2);
  } finally {
    spy.mockRestore();
  }
});

it('imports a Web Crypto key once per secret, not once per call', async () => {
  const { vi } = await import('vitest');
  const spy = vi.spyOn(crypto.subtle, 'importKey');
  try {
    const secret = `cache-check-${Math.random()}`;
    for (let i = 0; i < 5; i += 1) {
      const signature = await web.signPayload(`body-${i}`, secret);
      await web.verifySignature({ payload: `body-${i}`, signature, secret });
    }
    expect(spy).toHaveBeenCalledOnce();
  } finally {
    spy.mockRestore();
  }
});
