import { ignoreFailure } from './ignore-failure.js';

// How every part takes a `logger` option: a function, a console-like object (info, warn, error, optional
// debug), `false` for none, or absent for the part's default. A logger that throws changes nothing.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Writes one entry, never throwing. */
export type LogWrite<Entry> = (entry: Entry) => void;

/** How one part of the SDK resolves its `logger` option. */
export interface LoggerDefaults<Entry> {
  level(entry: Entry): LogLevel;
  /** The writer used without a `logger` option (`undefined`: nothing is written). */
  fallback(): LogWrite<Entry> | undefined;
}

/** The `logger` option as one guarded writer (`undefined` for `false`); a `TypeError` naming `name` for a bad one. */
export function resolveLogger<Entry>(name: string, logger: unknown, defaults: LoggerDefaults<Entry>): LogWrite<Entry> | undefined {
  if (logger === false) return undefined;
  if (logger === undefined) return defaults.fallback();
  if (typeof logger === 'function') {
    const write = logger as (entry: Entry) => unknown;
    return (entry) => ignoreFailure(() => write(entry));
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- `unknown` needs the cast to index by level
  const target = logger as Partial<Record<LogLevel, unknown>> | null;
  if (
    target === null ||
    typeof target !== 'object' ||
    !(['info', 'warn', 'error'] as const).every((level) => typeof target[level] === 'function')
  ) {
    throw new TypeError(
      `${name} must be a function, an object with info, warn and error methods and an optional debug (console, pino), or false`,
    );
  }
  return (entry) =>
    ignoreFailure(() => {
      const method = target[defaults.level(entry)];
      // without a debug method, debug entries are skipped
      return typeof method === 'function' ? (method as (entry: Entry) => unknown).call(target, entry) : undefined;
    });
}

/** What failed, as a plain object: an `Error`'s fields are not enumerable, so a JSON logger would print `{}`. */
export interface PlainError {
  name: string;
  message: string;
  status?: number;
  requestId?: string;
  operation?: string;
  stack?: string;
  errors?: PlainError[];
}

/** `value` (anything thrown or rejected) as a {@link PlainError}: name, message, and status, requestId, operation, stack, inner errors where there are some. */
export function plainError(value: unknown, depth = 0): PlainError {
  if (!(value instanceof Error)) {
    return { name: 'NonError', message: typeof value === 'string' ? value : `a thrown ${describeThrown(value)}` };
  }
  const plain: PlainError = { name: text(value.name, 'Error'), message: text(value.message, '') };
  const { status, requestId, operation } = value as { status?: unknown; requestId?: unknown; operation?: unknown };
  if (typeof status === 'number') plain.status = status;
  if (typeof requestId === 'string') plain.requestId = requestId;
  if (typeof operation === 'string') plain.operation = operation;
  if (typeof value.stack === 'string') plain.stack = value.stack;
  if (value instanceof AggregateError && Array.isArray(value.errors) && depth < 2) {
    plain.errors = value.errors.slice(0, 10).map((inner: unknown) => plainError(inner, depth + 1));
  }
  return plain;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function describeThrown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
