import { idempotencyKey } from './call-headers.js';
import { checkRequestOptions, RAW_REQUEST_OPTIONS, type AuthedCall } from './calls.js';
import type { RawRequestOptions } from './options.js';
import { typeName } from '../internal/type-name.js';
import { LEADING_SLASHES } from '../internal/path.js';

// What `request()` sends, checked before anything is sent: imported at the first `request()` (calls.ts).

/** A `.` or `..` segment, percent-encoded or not, between `/` or `\` (URL parsers resolve each, climbing out of the API base). */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=$|[/\\])/i;
/** From the query or fragment on: dots there are not path segments. */
const QUERY = /[?#].*$/s;

/** C0 controls and DEL: URL parsers delete TAB, LF and CR, which would join `.\t.` into `..` after the checks. */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * `apiBase` is the partner API base; the path is checked as written (no control characters, no
 * scheme, no `//`, no dot segment) and then as the URL parser reads it: the parsed URL must keep the
 * base's origin and stay below its path, whatever the parser removed or resolved.
 */
export function rawCall<T>(apiBase: string, method: string, path: string, options: RawRequestOptions<T>): AuthedCall<T> {
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)) {
    throw new TypeError(`method must be an HTTP method such as "GET", got ${typeName(method)}`);
  }
  if (typeof path === 'string' && CONTROL.test(path)) {
    throw new TypeError('path must not contain control characters (TAB, LF, CR, ...): percent-encode them in the segment');
  }
  if (
    typeof path !== 'string' ||
    path === '' ||
    /^[a-z][a-z0-9+.-]*:|^\/\//i.test(path) ||
    DOT_SEGMENT.test(path.replace(QUERY, '')) ||
    !staysBelow(apiBase, path)
  ) {
    throw new TypeError('path must be a path below the API base, such as "/orders/abc/payment" (no "." or ".." segments)');
  }
  const { schema, json, searchParams } = checkRequestOptions(options, RAW_REQUEST_OPTIONS);
  if (schema !== undefined && !isSchema(schema)) {
    throw new TypeError('schema must be a zod schema or a Standard Schema v1 validator (with a `~standard` property)');
  }
  const key = idempotencyKey(options.idempotencyKey);
  const normalized = path.startsWith('/') ? path : `/${path}`;
  return { method: method.toLowerCase(), path: normalized, schema, options, json, searchParams, key };
}

/** Whether `path`, appended to `apiBase` as the transport does, parses to a URL below the base (compared parsed, not as strings). */
function staysBelow(apiBase: string, path: string): boolean {
  const base = new URL(apiBase);
  const basePath = base.pathname.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(`${base.origin}${basePath}${path.replace(LEADING_SLASHES, '/')}`);
  } catch {
    return false;
  }
  return url.origin === base.origin && url.pathname.startsWith(`${basePath}/`);
}

/** A zod schema (`safeParse`) or a Standard Schema v1 validator (`~standard.validate`). */
function isSchema(schema: unknown): boolean {
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) return false;
  const { safeParse, '~standard': standard } = schema as { safeParse?: unknown; '~standard'?: { validate?: unknown } | null };
  return typeof safeParse === 'function' || typeof standard?.validate === 'function';
}
