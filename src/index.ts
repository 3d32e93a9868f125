/**
 * `checkout-partner-sdk`: the checkout service's partner API client ({@link CheckoutClient}), its
 * errors, and the records it reads with their zod schemas.
 *
 * @module
 */
export { CheckoutClient } from './client/client.js';
export type { StatusReader } from './client/client.js';
export type {
  CheckoutClientOptions,
  RawRequestOptions,
  RequestOptions,
  ResponseInfo,
  WaitOptions,
  WithResponse,
} from './client/options.js';
export type { LogEntry, LogError, Logger } from './logger.js';
export type { DrainReport } from './drain.js';
export type { TelemetryOptions } from './telemetry/options.js';
export type { RateLimitOptions, RetryBudgetOptions } from './client/load/options.js';
export {
  ApiError,
  AuthenticationError,
  CheckoutError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  QueueFullError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  WaitTimeoutError,
} from './errors.js';
export type { ValidationIssue } from './errors.js';
export { MeSchema, OrderSchema, TokenResponseSchema, WithdrawalSchema } from './schemas.js';
export type { Me, Order, TokenResponse, Withdrawal } from './schemas.js';
