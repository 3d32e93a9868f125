import { idempotencyKey } from './call-headers.js';
import { checkRequestOptions, RAW_REQUEST_OPTIONS, type AuthedCall } from './calls.js';
import type { RawRequestOptions } from './options.js';
import { typeName } from '../internal/type-name.js';
import { LEADING_SLASHES } from '../internal/path.js';

/** A `.` or `..` segment, percent-encoded or not: URL parsers resolve it, climbing out of the API base. */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=$|[/\\])/i;
const QUERY = /[?#].*$/s;

/** URL parsers delete TAB, LF and CR, which would join `.\t.` into `..` after the checks. */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const CONTROL = /[\u0000-\u001f\u007f]/;

/** What `request()` sends: the path checked as written, then as the URL parser reads it. */
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

/** Whether `path`, appended to `apiBase`, parses to a URL below it. */
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

function isSchema(schema: unknown): boolean {
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) return false;
  const { safeParse, '~standard': standard } = schema as { safeParse?: unknown; '~standard'?: { validate?: unknown } | null };
  return typeof safeParse === 'function' || typeof standard?.validate === 'function';
}
