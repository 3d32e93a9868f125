import { RECORD_KINDS, STATUS_KINDS } from '../kinds.js';

/**
 * Path segments of the partner API that are names, not values: kept in a `request()` call's
 * `url.template`. Every other segment becomes `{id}`, so that neither a span name nor a metric
 * attribute ever carries an id (an order's, a trade's, a payment's), and metric series stay few.
 */
const LITERAL_SEGMENTS = new Set([
  'auth',
  'me',
  'token',
  'orders',
  'withdrawals',
  'deposits',
  'trades',
  'payments',
  'by-external-id',
  'by-trade-id',
  'payment',
  'status',
  'cancel',
  'quote',
  'quotes',
]);

/** The fixed templates of the typed reads (the kinds table's paths), by the path's first two segments. */
const KNOWN: Readonly<Record<string, string>> = Object.fromEntries(
  STATUS_KINDS.map((kind) => {
    const { path } = RECORD_KINDS[kind];
    return [path.slice(0, path.lastIndexOf('/')), path];
  }),
);

/**
 * The low-cardinality template of a path below the API base (its query dropped):
 * `/orders/by-external-id/o-1` → `/orders/by-external-id/{externalId}`, `/orders/abc/payment` →
 * `/orders/{id}/payment`, `/auth/me` → `/auth/me`.
 */
export function urlTemplate(path: string): string {
  const segments = path.replace(/[?#].*$/s, '').split('/');
  const known = segments.length === 4 ? KNOWN[`/${segments[1]}/${segments[2]}`] : undefined;
  return known ?? segments.map((segment) => (segment === '' || LITERAL_SEGMENTS.has(segment) ? segment : '{id}')).join('/');
}

/** The `http.request.method` value: the method upper case when the conventions know it, else `_OTHER`. */
export function requestMethod(method: string): string {
  const upper = method.toUpperCase();
  return KNOWN_METHODS.has(upper) ? upper : '_OTHER';
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
