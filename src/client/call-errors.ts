// The error tree's error for a failed call: its attempt's failure, its answer, its refused body.
import { ApiError, ConnectionError, ResponseTooLargeError, ResponseValidationError, TimeoutError, type CheckoutError } from '../errors.js';
import { refusalOf, refused } from './load/refusal.js';
import { clientLogError } from './log.js';
import type { LogError } from '../logger.js';
import { BodyTooLarge } from './read-body.js';
import { FollowedRedirect, TIMED_OUT } from './attempt-run.js';
import { lazy } from '../internal/lazy.js';
import { codeOf, describeNetworkError, isNetworkError } from './network-error.js';
import type { SendOptions } from './send-options.js';
import type { ResponseSchema, StandardSchemaResult, StandardSchemaV1 } from '../schemas.js';
import type { ValidationIssue } from '../errors.js';

/**
 * A queue timeout of a request whose wait the call's own `timeoutMs` bounded (its deadline came
 * before the end of the client's attempt): said in the call's terms, as a timeout of the call itself.
 */
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

/** `METHOD /path`, for messages; built only when something failed. */
export function labelOf(options: Pick<SendOptions<unknown>, 'method' | 'path'>): string {
  return `${options.method.toUpperCase()} ${options.path}`;
}

/**
 * What a call that ran past its own `timeoutMs` rejects with; said to be a queue timeout when its
 * deadline came while it waited for its turn.
 */
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

/**
 * Maps what an attempt or its turn failed with onto the error tree (a promise: a body too large is
 * an answered call's error, made by a module imported at its first use); an abort rejects with the
 * signal's reason. Messages quote only what is known to hold no header value (a Headers or Request
 * error quotes the offending value, which may be the token): a network error's fixed text and its
 * system error code.
 */
export async function toCheckoutError(
  error: unknown,
  options: SendOptions<unknown>,
  waitedMs: number,
  timeoutMs: number,
): Promise<unknown> {
  // refused unsent, already typed
  if (refusalOf(error) !== undefined) return error;
  const label = labelOf(options);
  const { attempts } = options.trace;
  if (error instanceof BodyTooLarge) {
    const { status, limitBytes } = error;
    return answeredError(
      (errors) => errors.tooLarge(error, options),
      () =>
        new ResponseTooLargeError(`${status} from ${label}: the response body is larger than maxResponseBytes (${limitBytes} bytes)`, {
          status,
          request: label,
          limitBytes,
          attempts,
        }),
    );
  }
  if (error instanceof FollowedRedirect) {
    const message = `${label} was redirected, which the client never follows: the custom fetch must honour redirect: 'manual'`;
    return new ApiError(message, { request: label, attempts });
  }
  if (error === TIMED_OUT) {
    // the wait for a turn counts in the attempt's timeoutMs: say so, or a queue reads as a slow service
    const waited = waitedMs >= 1 ? `, ${Math.round(waitedMs)} ms of which it waited for its turn (rateLimit, a Retry-After pause)` : '';
    return new TimeoutError(`${label} timed out: no complete response (headers and body) within timeoutMs (${timeoutMs} ms)${waited}`, {
      request: label,
      attempts,
    });
  }
  if (isNetworkError(error)) {
    return new ConnectionError(`${label} failed: ${describeNetworkError(error)}`, { request: label, cause: error, attempts });
  }
  if (error instanceof ApiError) return error;
  // an error fetch does not say is the network's (a custom fetch's, or a Headers/Request TypeError): its name only
  const name = error instanceof Error ? error.name : typeof error;
  return new ConnectionError(`${label} failed before any response arrived (${name}${codeOf(error) ?? ''})`, { request: label, attempts });
}

type ResponseErrors = typeof import('./response-errors.js');
const responseErrors = lazy(() => import('./response-errors.js'));

/**
 * The error of a call the service answered, made by `./response-errors.js` (its messages and the
 * redaction of the credentials in its headers and body), imported at the first such answer rather
 * than with the SDK: a call that succeeds never needs it. Should the import fail (an app's chunk
 * that cannot be fetched), `fallback`: the same error class, with no headers and no body, so no
 * credential can be in it.
 */
export async function answeredError(
  build: (errors: ResponseErrors) => CheckoutError,
  fallback: () => CheckoutError,
): Promise<CheckoutError> {
  let errors: ResponseErrors;
  try {
    errors = await responseErrors();
  } catch {
    return fallback();
  }
  return build(errors);
}

/**
 * A 2xx body, parsed as JSON and by `schema` (a zod schema or any Standard Schema v1 validator);
 * anything else rejects with a {@link ResponseValidationError}. A record of the by-external-id reads
 * whose `externalId` is not the one asked for is refused too: the tracker, the webhook confirmation
 * and `waitFor*` read through here, so none of them ever takes B's record for A's. The value itself
 * when it is known at once (zod's `safeParse` is synchronous): a promise only to refuse, or for an
 * asynchronous Standard Schema validator.
 */
export function parseBody<T>(response: Response, text: string, options: SendOptions<T>): T | Promise<T> {
  let data: unknown;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      const issues = [{ code: 'invalid_json', path: [], message: 'The response body is not JSON' }];
      return refuse(
        answeredError(
          (errors) => errors.notJson(response, text, options),
          () => invalid(response, options, 'the body is not JSON', issues),
        ),
      );
    }
  }
  const { schema } = options;
  if (schema === undefined) return data as T;
  const result = validate(schema, data);
  return result instanceof Promise
    ? result.then((settled) => checked(response, text, data, settled, options))
    : checked(response, text, data, result, options);
}

/** The validated record, or the refusal of a body of the wrong shape or of another record. */
function checked<T>(response: Response, text: string, data: unknown, result: Validated<T>, options: SendOptions<T>): T | Promise<never> {
  const { issues } = result;
  if (issues !== undefined) {
    return refuse(
      answeredError(
        (errors) => errors.mismatch(response, text, data, issues, options),
        () => invalid(response, options, 'the body does not match the expected shape', issues),
      ),
    );
  }
  const { externalId } = options;
  const received = (result.value as { externalId?: unknown } | null | undefined)?.externalId;
  if (externalId === undefined || received === externalId) return result.value;
  return refuse(
    answeredError(
      (errors) => errors.wrongRecord(response, text, received, externalId, options),
      () => invalid(response, options, 'the service answered with the record of another externalId', []),
    ),
  );
}

/** Rejects with the error `made` resolves with. */
async function refuse(made: Promise<CheckoutError>): Promise<never> {
  throw await made;
}

/** The fallback of a refused 2xx body (see {@link answeredError}): no headers, no body. */
function invalid(
  response: Response,
  options: SendOptions<unknown>,
  what: string,
  issues: readonly ValidationIssue[],
): ResponseValidationError {
  const label = labelOf(options);
  return new ResponseValidationError(`${response.status} from ${label}: ${what}`, {
    status: response.status,
    request: label,
    issues,
    attempts: options.trace.attempts,
  });
}

type Validated<T> = { value: T; issues?: undefined } | { issues: readonly ValidationIssue[] };

/**
 * `data` through `schema`: zod's `safeParse` where the schema has one (synchronous, its issues as
 * they are), else Standard Schema's `validate` (a promise only when the validator returns one).
 */
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

/** A Standard Schema result as {@link validate} gives it: the value, or the issues with plain path keys. */
function standardResult<T>(result: StandardSchemaResult<T>): Validated<T> {
  if (result.issues === undefined) return { value: result.value };
  return {
    issues: result.issues.map((issue) => ({
      message: issue.message,
      path: (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment)),
    })),
  };
}

/**
 * What ended an attempt without a complete response, as its log entry's `error`: named by the error
 * it becomes, said without quoting what fetch threw (it may quote a header).
 */
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
  if (error === TIMED_OUT)
    return { name: 'TimeoutError', message: `no complete response (headers and body) within timeoutMs (${timeoutMs} ms)` };
  const name = error instanceof Error ? error.name : typeof error;
  const message = isNetworkError(error)
    ? describeNetworkError(error)
    : `failed before any response arrived (${name}${codeOf(error) ?? ''})`;
  return { name: 'ConnectionError', message };
}
