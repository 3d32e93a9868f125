/** An adapter found the raw body gone (a body parser read it): answered 500 with this message, which says how to fix the route. */
export class RawBodyUnavailableError extends TypeError {
  override readonly name = 'RawBodyUnavailableError';
}
