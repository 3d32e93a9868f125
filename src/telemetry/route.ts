import { RECORD_KINDS, STATUS_KINDS } from '../kinds.js';

/** The record kinds' collections, from the kinds table (`/orders/by-external-id/{externalId}` → `orders`). */
const KIND_COLLECTIONS = STATUS_KINDS.map((kind) => RECORD_KINDS[kind].path.split('/')[1] ?? '');

/** Other collections of the partner API that `request()` may reach (the spec's operations it does not type). */
const OTHER_COLLECTIONS = ['deposits', 'trades', 'payments', 'quotes', 'checkouts'];

/** Path segments that are always names, never values: kept in a `request()` call's `url.template`. */
const LITERAL_SEGMENTS = new Set([
  ...KIND_COLLECTIONS,
  ...OTHER_COLLECTIONS,
  'auth',
  'me',
  'token',
  'by-external-id',
  'by-trade-id',
  'payment',
  'status',
  'cancel',
  'quote',
]);

/** Collections: the segment after one of them names a record (`/orders/abc/payment` → `/orders/{id}/payment`). */
const COLLECTIONS = new Set([...KIND_COLLECTIONS, ...OTHER_COLLECTIONS]);

/** A word: letters, `-` and `_`, at most 32 (`checkouts`, `refund-requests`); anything else may be a value. */
const WORD = /^[A-Za-z][A-Za-z_-]{0,31}$/;

/** The fixed templates of the typed reads (the kinds table's paths), by the path's first two segments. */
const KNOWN: Readonly<Record<string, string>> = Object.fromEntries(
  STATUS_KINDS.map((kind) => {
    const { path } = RECORD_KINDS[kind];
    return [path.slice(0, path.lastIndexOf('/')), path];
  }),
);

/**
 * The low-cardinality template of a path, query dropped (`/orders/abc/payment` → `/orders/{id}/payment`):
 * a word stays where it names things (not right after a collection); anything that may be a value
 * becomes `{id}`, so no span name or metric attribute carries an id.
 */
export function urlTemplate(path: string): string {
  const segments = path.replace(/[?#].*$/s, '').split('/');
  const known = segments.length === 4 ? KNOWN[`/${segments[1]}/${segments[2]}`] : undefined;
  if (known !== undefined) return known;
  return segments
    .map((segment, index) => {
      if (segment === '' || LITERAL_SEGMENTS.has(segment)) return segment;
      const afterCollection = index > 0 && COLLECTIONS.has(segments[index - 1] ?? '');
      return !afterCollection && WORD.test(segment) ? segment : '{id}';
    })
    .join('/');
}

/** The `http.request.method` value: the method upper case when the conventions know it, else `_OTHER`. */
export function requestMethod(method: string): string {
  const upper = method.toUpperCase();
  return KNOWN_METHODS.has(upper) ? upper : '_OTHER';
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
