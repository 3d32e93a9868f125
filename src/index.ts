/**
 * `checkout-partner-sdk`: the partner API client ({@link CheckoutClient}), its errors, and the records it reads with their schemas.
 * @module
 */
export { CheckoutClient } from './client/client.js';
export type { StatusReader } from './client/client.js';
export type { KindRecord, KindRecords, ReadName, ReadOptions, RecordOf, RecordReader, ResolverName, StatusKind } from './kinds.js';
export type {
  CheckoutClientOptions,
  RawRequestOptions,
  RequestOptions,
  ResponseInfo,
  WaitOptions,
  WithResponse,
} from './client/options.js';
export type { KindReads, KindResponseReads, KindWaits, ResponseReads, PartnerSecret } from './client/options.js';
export type { ClientLogEntry, LogEntry, LogError, Logger, TrackerLogEntry, WebhookLogEntry, WebhookWarning } from './logger.js';
export type { DrainOptions, DrainReport, InHandDelivery, InHandRecord, InHandWork } from './drain.js';
export type { MeterProviderLike, OpenTelemetryApiLike, TelemetryOptions, TracerProviderLike } from './telemetry/options.js';
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
export type { ApiErrorInit, ValidationIssue } from './errors.js';
export { HandlingAbandonedError } from './handling.js';
export type { AbandonReason } from './handling.js';
export { StoreRequiredError } from './stores/errors.js';
export { MeSchema, OrderSchema, TokenResponseSchema, WithdrawalSchema } from './schemas.js';
export type {
  Currency,
  KnownString,
  Me,
  Order,
  ParseResult,
  ParseSchema,
  ResponseSchema,
  Settlement,
  SettlementStatus,
  StandardPathSegment,
  StandardSchemaResult,
  StandardSchemaTypes,
  StandardSchemaV1,
  TokenResponse,
  Withdrawal,
  WithdrawalStatus,
} from './schemas.js';
