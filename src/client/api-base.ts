import { quote } from '../internal/quote.js';
export const API_PATH = '/api/v1/partner-api';

/** `baseUrl` as the partner API base; a `TypeError` for anything but an http(s) URL without credentials. */
export function partnerApiBase(baseUrl: string, name = 'baseUrl'): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`${name} must be an absolute http(s) URL such as "https://checkout.example.com"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`${name} must use http or https, got ${quote(url.protocol)}`);
  }
  if (url.username !== '' || url.password !== '') throw new TypeError(`${name} must not contain credentials`);
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith(API_PATH) ? path : `${path}${API_PATH}`;
  return url.href;
}
