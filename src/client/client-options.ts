import { byteCount, functionOption, timerMs } from '../internal/arguments.js';
import { retriesOption } from './call-headers.js';
import { env } from '../internal/env.js';
import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';
import type { CheckoutClientOptions, PartnerSecret } from './options.js';

export const CLIENT_OPTIONS = [
  'baseUrl',
  'partnerId',
  'partnerSecret',
  'timeoutMs',
  'totalTimeoutMs',
  'maxRetries',
  'tokenSkewSeconds',
  'tokenStore',
  'fetch',
  'maxResponseBytes',
  'allowInsecureHttp',
  'logger',
  'rateLimit',
  'retryBudget',
  'tracerProvider',
  'meterProvider',
  'openTelemetryApi',
] as const satisfies readonly (keyof CheckoutClientOptions)[];
// fails to compile when an option of the type is missing above
export const EVERY_CLIENT_OPTION: Exclude<keyof CheckoutClientOptions, (typeof CLIENT_OPTIONS)[number]> extends never ? true : never = true;

export function requestSettings(options: CheckoutClientOptions) {
  const timeoutMs = timerMs('timeoutMs', options.timeoutMs, 30_000);
  const totalTimeoutMs = timerMs('totalTimeoutMs', options.totalTimeoutMs, 60_000);
  const maxResponseBytes = byteCount('maxResponseBytes', options.maxResponseBytes, 1_048_576);
  const maxRetries = retriesOption(options.maxRetries) ?? 2;
  const skewSeconds = options.tokenSkewSeconds ?? 30;
  if (typeof skewSeconds !== 'number' || !(skewSeconds >= 0) || !(skewSeconds * 1000 <= Number.MAX_SAFE_INTEGER)) {
    throw new TypeError(`tokenSkewSeconds must be a finite number of at least 0, got ${quote(skewSeconds)}`);
  }
  functionOption('fetch', options.fetch);
  const store = options.tokenStore;
  if (store !== undefined && (typeof store?.get !== 'function' || typeof store.set !== 'function')) {
    throw new TypeError('tokenStore must have get(key) and set(key, token) methods');
  }
  return { timeoutMs, totalTimeoutMs, maxResponseBytes, maxRetries, skewSeconds, store };
}

export function required(name: string, envName: string, value: unknown): string {
  const resolved = value ?? env(envName);
  if (resolved === undefined || resolved === '') {
    throw new TypeError(`CheckoutClient: missing ${name}: pass the ${name} option or set ${envName}`);
  }
  if (typeof resolved !== 'string') throw new TypeError(`${name} must be a string, got ${typeName(resolved)}`);
  return resolved;
}

export function secretOption(value: unknown): PartnerSecret {
  if (typeof value === 'function') return value as () => string | Promise<string>;
  return required('partnerSecret', 'CHECKOUT_PARTNER_SECRET', value);
}
