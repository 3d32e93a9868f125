// `#otel-api` elsewhere (Workers, Edge, browsers): no specifier of the peer, since workerd refuses a
// module whose import it cannot resolve.

/** `null`: the API is only what the app passes as `openTelemetryApi`. */
export function loadOtelApi(): unknown {
  return null;
}
