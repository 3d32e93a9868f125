/** Loopback hosts as `URL#hostname` spells them: where the fake service and sandboxes run. */
export const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * A `TypeError` for a plain `http:` API base whose host is not loopback, unless the partner opted
 * in: over plain http the partner secret and the token would cross the network in clear text.
 */
export function checkTransportSecurity(apiBase: string, allowInsecureHttp: boolean): void {
  const url = new URL(apiBase);
  if (url.protocol !== 'http:' || allowInsecureHttp || LOOPBACK.test(url.hostname)) return;
  throw new TypeError(
    `baseUrl uses plain http (${url.host}), which would send the partner secret and the token in clear text: ` +
      'use https, or pass allowInsecureHttp: true if this is a private network you trust',
  );
}
