/**
 * Thrown by an adapter that finds the raw body gone (a body parser or the app read it first).
 * Internal: the handler answers it with a 500 whose plain-text body is this message, which says
 * how to fix the route.
 */
export class RawBodyUnavailableError extends TypeError {
  override readonly name = 'RawBodyUnavailableError';
}
