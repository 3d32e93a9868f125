import { ApiError, CheckoutError, NotFoundError, RateLimitError } from 'checkout-partner-sdk';
import { describe, expectTypeOf, it } from 'vitest';

describe('instanceof still narrows with the cross-build Symbol.hasInstance', () => {
  it('narrows to the class on the right', () => {
    const error: unknown = new NotFoundError('x', { status: 404 });
    if (error instanceof NotFoundError) expectTypeOf(error).toEqualTypeOf<NotFoundError>();
    if (error instanceof RateLimitError) expectTypeOf(error.retryAfterMs).toEqualTypeOf<number | undefined>();
    if (error instanceof ApiError) expectTypeOf(error.status).toEqualTypeOf<number | undefined>();
    if (error instanceof CheckoutError) expectTypeOf(error).toEqualTypeOf<CheckoutError>();
  });
});
