// The error tree's error for a failed call: its attempt's failure, its deadline, its refused body.
import { ApiError, CheckoutError, ConnectionError, TimeoutError, type ValidationIssue } from '../errors.js';
import { refusalOf, refused } from './load/refusal.js';
import { clientLogError } from './log.js';
import type { LogError } from '../logger.js';
import { BodyTooLarge } from './read-body.js';
import { FollowedRedirect, TIMED_OUT } from './attempt-run.js';
import { codeOf, describeNetworkError, isNetworkError } from './network-error.js';
import { labelOf, mismatch, notJson, tooLarge, wrongRecord } from './response-errors.js';
import type { SendOptions } from './send-options.js';
import type { ResponseSchema, StandardSchemaResult, StandardSchemaV1 } from '../schemas.js';

/** A queue timeout that the call's own `timeoutMs` bounded, said in the call's terms. */
export function ownDeadlineInQueue(error: unknown, options: SendOptions<unknown>): unknown {
  if (refusalOf(error) !== 'checkout.queue_timeout') return error;
  const label = labelOf(options);
  return refused(
    new TimeoutError(
      `${label} did not complete within its timeoutMs (${options.callTimeoutMs} ms): it ran out while waiting for its turn in the client's queue ` +
        '(rateLimit concurrency or requestsPerSecond, a Retry-After pause), and was not sent with less than half of it left',
      { request: label, attempts: options.trace.attempts },
    ),
    'checkout.queue_timeout',
  );
}

/** What a call past its deadline rejects with; a queue timeout when it was waiting for its turn. */
export function callTimeoutError(options: SendOptions<unknown>, queued: boolean): TimeoutError {
  const label = labelOf(options);
  const { attempts } = options.trace;
  const { callTimeoutMs, totalTimeoutMs } = options;
  const message =
    callTimeoutMs === undefined
      ? `${label} did not complete within the client's totalTimeoutMs (${totalTimeoutMs} ms), its attempts and the waits between them included`
      : `${label} did not complete within its timeoutMs (${callTimeoutMs} ms)`;
  if (!queued) return new TimeoutError(message, { request: label, attempts });
  return refused(
    new TimeoutError(
      `${message}: it ran out while waiting for its turn in the client's queue (rateLimit concurrency or requestsPerSecond, a Retry-After pause), unsent`,
      { request: label, attempts },
    ),
    'checkout.queue_timeout',
  );
}

/** What an attempt failed with, on the error tree; never quoting fetch's message, which may quote the token. */
export function toCheckoutError(error: unknown, options: SendOptions<unknown>, waitedMs: number, timeoutMs: number): CheckoutError {
  const label = labelOf(options);
  const { attempts } = options.trace;
  if (error instanceof BodyTooLarge) return tooLarge(error, options);
  if (error instanceof FollowedRedirect) {
    const message = `${label} was redirected, which the client never follows: the custom fetch must honour redirect: 'manual'`;
    return new ApiError(message, { request: label, attempts });
  }
  if (error === TIMED_OUT) {
    // said, or a queue reads as a slow service
    const waited = waitedMs >= 1 ? `, ${Math.round(waitedMs)} ms of which it waited for its turn (rateLimit, a Retry-After pause)` : '';
    return new TimeoutError(`${label} timed out: no complete response (headers and body) within timeoutMs (${timeoutMs} ms)${waited}`, {
      request: label,
      attempts,
    });
  }
  if (isNetworkError(error)) {
    return new ConnectionError(`${label} failed: ${describeNetworkError(error)}`, { request: label, cause: error, attempts });
  }
  const name = error instanceof Error ? error.name : typeof error;
  return new ConnectionError(`${label} failed before any response arrived (${name}${codeOf(error) ?? ''})`, { request: label, attempts });
}

/**
 * A 2xx body, parsed as JSON and by `schema`, else a `ResponseValidationError`; a record of another
 * `externalId` is refused too. A promise only for an asynchronous Standard Schema validator.
 */
export function parseBody<T>(response: Response, text: string, options: SendOptions<T>): T | Promise<T> {
  let data: unknown;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      throw notJson(response, text, options);
    }
  }
  const { schema } = options;
  if (schema === undefined) return data as T;
  const result = validate(schema, data);
  return result instanceof Promise
    ? result.then((settled) => checked(response, text, data, settled, options))
    : checked(response, text, data, result, options);
}

function checked<T>(response: Response, text: string, data: unknown, result: Validated<T>, options: SendOptions<T>): T {
  const { issues } = result;
  if (issues !== undefined) throw mismatch(response, text, data, issues, options);
  const { externalId } = options;
  const received = (result.value as { externalId?: unknown } | null | undefined)?.externalId;
  if (externalId === undefined || received === externalId) return result.value;
  throw wrongRecord(response, text, received, externalId, options);
}

type Validated<T> = { value: T; issues?: undefined } | { issues: readonly ValidationIssue[] };

function validate<T>(schema: ResponseSchema<T>, data: unknown): Validated<T> | Promise<Validated<T>> {
  if ('safeParse' in schema && typeof schema.safeParse === 'function') {
    const parsed = schema.safeParse(data);
    return parsed.success ? { value: parsed.data } : { issues: parsed.error.issues };
  }
  const result = (schema as StandardSchemaV1<unknown, T>)['~standard'].validate(data);
  // any thenable (a promise of another realm too), made this realm's promise
  return typeof (result as { then?: unknown }).then === 'function'
    ? Promise.resolve(result).then(standardResult)
    : standardResult(result as StandardSchemaResult<T>);
}

function standardResult<T>(result: StandardSchemaResult<T>): Validated<T> {
  if (result.issues === undefined) return { value: result.value };
  return {
    issues: result.issues.map((issue) => ({
      message: issue.message,
      path: (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment)),
    })),
  };
}

/** What ended an attempt, as its log entry's `error`, named by the error it becomes. */
export function attemptError(error: unknown, options: SendOptions<unknown>, timeoutMs: number): LogError {
  if (error instanceof BodyTooLarge) {
    return {
      name: 'ResponseTooLargeError',
      message: `the response body is larger than maxResponseBytes (${error.limitBytes} bytes)`,
      status: error.status,
    };
  }
  if (error instanceof FollowedRedirect)
    return { name: 'ApiError', message: "the custom fetch followed a redirect despite redirect: 'manual'" };
  const callSignal = options.signal;
  if (callSignal?.aborted) return clientLogError(callSignal.reason, 'the call was aborted by its signal');
  // the call's deadline
  if (error instanceof CheckoutError) return clientLogError(error, error.message);
  if (error === TIMED_OUT)
    return { name: 'TimeoutError', message: `no complete response (headers and body) within timeoutMs (${timeoutMs} ms)` };
  const name = error instanceof Error ? error.name : typeof error;
  const message = isNetworkError(error)
    ? describeNetworkError(error)
    : `failed before any response arrived (${name}${codeOf(error) ?? ''})`;
  return { name: 'ConnectionError', message };
}
