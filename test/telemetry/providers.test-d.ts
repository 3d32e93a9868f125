import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import type { CheckoutClientOptions, TelemetryOptions } from 'checkout-partner-sdk';
import type { WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { expectTypeOf, test } from 'vitest';

test('the OpenTelemetry providers fit the options, typed without the optional peer', () => {
  expectTypeOf(new TracerProvider()).toExtend<NonNullable<CheckoutClientOptions['tracerProvider']>>();
  expectTypeOf(new MeterProvider()).toExtend<NonNullable<CheckoutClientOptions['meterProvider']>>();
  expectTypeOf(trace.getTracerProvider()).toExtend<NonNullable<TelemetryOptions['tracerProvider']>>();
  expectTypeOf(metrics.getMeterProvider()).toExtend<NonNullable<WebhookHandlerOptions['meterProvider']>>();
  expectTypeOf<{ getTracer: string }>().not.toExtend<NonNullable<CheckoutClientOptions['tracerProvider']>>();
});
