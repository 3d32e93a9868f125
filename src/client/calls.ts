import { checkOptions, oneOf, timerMs } from '../internal/arguments.js';
import { TimeoutError } from '../errors.js';
import { MeSchema, type Me, type ResponseSchema } from '../schemas.js';
import { RECORD_KINDS, STATUS_KINDS, type RecordOf, type StatusKind } from '../kinds.js';
import type { RawRequestOptions, RequestOptions } from './options.js';
import { callHeaders, retriesOption } from './call-headers.js';
import { pathSegment } from '../internal/path.js';
import type { CallTrace } from './send-options.js';

// What each public method of CheckoutClient sends, checked before anything is sent.

const REQUEST_OPTIONS = ['signal', 'timeoutMs', 'headers', 'maxRetries'] as const satisfies readonly (keyof RequestOptions)[];
export const RAW_REQUEST_OPTIONS = [
  ...REQUEST_OPTIONS,
  'searchParams',
  'json',
  'schema',
  'idempotencyKey',
] as const satisfies readonly (keyof RawRequestOptions<unknown>)[];

export function checkRequestOptions<O extends RequestOptions>(options: O, known: readonly string[] = REQUEST_OPTIONS): O {
  checkOptions('call', options, known);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError('signal must be an AbortSignal');
  }
  if (options.timeoutMs !== undefined) timerMs('timeoutMs', options.timeoutMs, 0);
  if (options.headers !== undefined) callHeaders(options.headers);
  retriesOption(options.maxRetries);
  return options;
}

export function callTimedOut(label: string, timeoutMs: number | undefined, attempts?: number): TimeoutError {
  return new TimeoutError(`${label} did not complete within its timeoutMs (${timeoutMs} ms)`, { request: label, attempts });
}

export interface AuthedCall<T> {
  method: string;
  path: string;
  schema: ResponseSchema<T> | undefined;
  options: RequestOptions;
  json?: unknown;
  searchParams?: RawRequestOptions<T>['searchParams'];
  key?: string | undefined;
  externalId?: string | undefined;
}

export const newTrace = (): CallTrace => ({ attempts: 0, response: undefined, queuedMs: 0 });

export function meCall(options: RequestOptions): AuthedCall<Me> {
  return { method: 'get', path: '/auth/me', schema: MeSchema, options: checkRequestOptions(options) };
}

/** The status read of a record of `kind`, from the kinds table. */
export function recordCall<K extends StatusKind>(kind: K, externalId: string, options: RequestOptions): AuthedCall<RecordOf<K>> {
  oneOf('kind', kind, STATUS_KINDS);
  const { path, schema } = RECORD_KINDS[kind] as { path: string; schema: ResponseSchema<RecordOf<K>> };
  const segment = pathSegment(externalId, 'externalId');
  return { method: 'get', path: path.replace('{externalId}', () => segment), schema, options: checkRequestOptions(options), externalId };
}
