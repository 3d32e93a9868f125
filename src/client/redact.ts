import { MIN_REDACTED_LENGTH, REDACTED } from './redacted.js';

const MAX_DEPTH = 128;

/**
 * Finds the credentials a request carried in what came back, in every form a service, a proxy or a
 * framework may have encoded them: as sent, JSON-escaped, `\uXXXX`, percent-encoded UTF-8, `+` for
 * a space, and any mix of these character by character.
 */
export class Redactor {
  readonly #pattern: RegExp | undefined;

  constructor(values: readonly string[]) {
    const sources = values.filter((value) => value.length >= MIN_REDACTED_LENGTH).map(anyEncoding);
    // longest first, so a secret that contains another is replaced whole
    sources.sort((a, b) => b.length - a.length);
    this.#pattern = sources.length === 0 ? undefined : new RegExp(sources.join('|'), 'g');
  }

  text(text: string): string {
    if (this.#pattern === undefined) return text;
    this.#pattern.lastIndex = 0;
    return text.replace(this.#pattern, REDACTED);
  }

  /** A parsed body with every string redacted: parsing decoded escapes the text search could not see. */
  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth > MAX_DEPTH) return REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a `__proto__` key stays a plain key
      Object.defineProperty(out, this.text(key), {
        value: this.value(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }

  /** `headers` redacted; the same object when nothing was found, unless `copy`. */
  headers(headers: Headers, copy: boolean): Headers {
    let out: Headers | undefined = copy ? new Headers(headers) : undefined;
    for (const [name, value] of headers) {
      const clean = this.text(value);
      if (clean === value) continue;
      out ??= new Headers(headers);
      out.set(name, clean);
    }
    return out ?? headers;
  }
}

function anyEncoding(value: string): string {
  let source = '';
  for (const char of value) source += charForms(char);
  return source;
}

const JSON_SHORT: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };

function charForms(char: string): string {
  const forms = [escapeRegExp(char)];
  // per UTF-16 code unit: a character outside the BMP is a surrogate pair
  let unicode = '';
  for (let i = 0; i < char.length; i++) unicode += `\\\\u${hexDigits(char.charCodeAt(i), 4)}`;
  forms.push(unicode);
  const short = JSON_SHORT[char];
  if (short !== undefined) forms.push(`\\\\${escapeRegExp(short)}`);
  let percent = '';
  for (const byte of new TextEncoder().encode(char)) percent += `%${hexDigits(byte, 2)}`;
  forms.push(percent);
  if (char === ' ') forms.push('\\+');
  return `(?:${forms.join('|')})`;
}

function hexDigits(n: number, width: number): string {
  return Array.from(n.toString(16).padStart(width, '0'))
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** The credentials a request carried, or may see quoted back (`alsoRedact`). */
export function credentialValues({ headers, alsoRedact }: { headers: Record<string, string>; alsoRedact?: string | undefined }): string[] {
  const found: string[] = alsoRedact === undefined ? [] : [alsoRedact];
  const auth = headers.authorization;
  if (auth !== undefined) found.push(auth.replace(/^Bearer /, ''));
  const secret = headers['x-partner-secret'];
  if (secret !== undefined) found.push(secret);
  return found;
}

/** A short value the service sent (a request id), redacted; a pattern is built only when a credential may be in it. */
export function redactShort(text: string, values: readonly (string | undefined)[]): string {
  const found = values.filter((value): value is string => value !== undefined && value.length >= MIN_REDACTED_LENGTH);
  const mayHold = found.length > 0 && (/[%\\+]/.test(text) || found.some((value) => text.includes(value)));
  return mayHold ? new Redactor(found).text(text) : text;
}
