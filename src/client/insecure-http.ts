/** Loopback hosts as `URL#hostname` spells them. */
export const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** A `TypeError` for a plain `http:` API base off loopback, unless the partner opted in. */
export function checkTransportSecurity(apiBase: string, allowInsecureHttp: boolean): void {
  const url = new URL(apiBase);
  if (url.protocol !== 'http:' || allowInsecureHttp || LOOPBACK.test(url.hostname)) return;
  throw new TypeError(
    `baseUrl uses plain http (${url.host}), which would send the partner secret and the token in clear text: ` +
      'use https, or pass allowInsecureHttp: true if this is a private network you trust',
  );
}
