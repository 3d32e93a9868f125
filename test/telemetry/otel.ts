import { context, metrics, propagation, trace, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { DataPointType, MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

/** A metric reader the test pulls from. */
class PullReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** The real OpenTelemetry JS SDK: an in-memory span exporter and a metric reader, registered globally unless `global` is false. */
export function installOtel({ global = true } = {}) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (global) {
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    tracerProvider,
    meterProvider,
    tracer: tracerProvider.getTracer('app'),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    span(name: string): ReadableSpan {
      const found = exporter.getFinishedSpans().filter((s) => s.name === name);
      if (found.length !== 1)
        throw new Error(
          `expected one span "${name}", found ${found.length} in ${exporter
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      return found[0] as ReadableSpan;
    },
    /** Every metric collected now, by name. */
    async metrics(): Promise<Map<string, MetricData>> {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) out.set(metric.descriptor.name, metric);
      return out;
    },
    async uninstall(): Promise<void> {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

export type Otel = ReturnType<typeof installOtel>;

/** The data points of `metric` whose attributes include `match`. */
export function points(metric: MetricData | undefined, match: Attributes = {}): DataPoint<unknown>[] {
  if (metric === undefined) return [];
  return (metric.dataPoints as DataPoint<unknown>[]).filter((point) =>
    Object.entries(match).every(([key, value]) => point.attributes[key] === value),
  );
}

/** The total count of a histogram's points matching `match`, or the sum of a counter's. */
export function total(metric: MetricData | undefined, match: Attributes = {}): number {
  return points(metric, match).reduce((sum, point) => {
    if (metric?.dataPointType === DataPointType.HISTOGRAM) return sum + (point.value as Histogram).count;
    return sum + (point.value as number);
  }, 0);
}

/** The parent span id of a finished span. */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
