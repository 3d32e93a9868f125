// `#otel-api` everywhere else (Cloudflare Workers, Next.js's Edge runtime, browsers): no specifier
// of the optional peer at all, so a bundle made without `@opentelemetry/api` installed still loads
// (workerd refuses a module that names an import it cannot resolve). Spans there come from the
// module the app passes: `openTelemetryApi`.

/** `null`: the API is only what the app passes as `openTelemetryApi`. */
export function loadOtelApi(): unknown {
  return null;
}
