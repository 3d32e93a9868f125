export { CheckoutClient } from './client/client.js';
export type { StatusReader } from './client/client.js';
export type {
  CheckoutClientOptions,
  PartnerSecret,
  RawRequestOptions,
  RequestOptions,
  ResponseInfo,
  ResponseReads,
  WaitOptions,
  WithResponse,
} from './client/options.js';
export type { ClientLogEntry, LogEntry, LogError, Logger, TrackerLogEntry, WebhookLogEntry, WebhookWarning } from './logger.js';
export type { DrainOptions, DrainReport, InHandDelivery, InHandRecord, InHandWork } from './drain.js';
export type { MeterProviderLike, OpenTelemetryApiLike, TelemetryOptions, TracerProviderLike } from './telemetry/options.js';
export type { RateLimitOptions, RetryBudgetOptions } from './client/load/options.js';
export type { StoredToken, TokenStore } from './stores/token-store.js';
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
export type { ApiErrorInit, ValidationIssue } from './errors.js';
export { MeSchema, OrderSchema, SettlementSchema, TokenResponseSchema, WithdrawalSchema } from './schemas.js';
export type {
  Currency,
  KnownString,
  Me,
  Order,
  ParseResult,
  ParseSchema,
  Settlement,
  SettlementStatus,
  TokenResponse,
  Withdrawal,
  WithdrawalStatus,
} from './schemas.js';
