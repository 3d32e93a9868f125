import { parseArgs } from 'node:util';
import { isStatusKind, STATUS_KINDS, type StatusKind } from '../kinds.js';
import { usage } from './exit-codes.js';

/** Every option of every command; each command says which of them it takes. */
const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  json: { type: 'boolean' },
  'base-url': { type: 'string' },
  'partner-id': { type: 'string' },
  'partner-secret': { type: 'string' },
  'partner-secret-file': { type: 'string' },
  'partner-secret-stdin': { type: 'boolean' },
  'allow-insecure-http': { type: 'boolean' },
  'wait-until': { type: 'string' },
  timeout: { type: 'string' },
  interval: { type: 'string' },
  show: { type: 'boolean' },
  file: { type: 'string' },
  secret: { type: 'string' },
  'secret-file': { type: 'string' },
  'secret-stdin': { type: 'boolean' },
  signature: { type: 'string' },
  port: { type: 'string' },
  to: { type: 'string' },
  type: { type: 'string' },
  'event-id': { type: 'string' },
  'trade-id': { type: 'string' },
  'body-file': { type: 'string' },
  curl: { type: 'string' },
  kind: { type: 'string' },
  withdrawal: { type: 'boolean' },
} as const;

export type OptionName = keyof typeof OPTIONS;
export type ParsedOptions = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** The command line split into positionals and options; unknown options are a usage error. */
export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly options: ParsedOptions;
}

export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    return { positionals, options: values };
  } catch (error) {
    // parseArgs' messages name the option, never its value (which may be a secret)
    const message = error instanceof Error ? error.message.split(/\n|\. /)[0]! : String(error);
    throw usage(message.replace(/^Unknown option/, 'unknown option').replace(/^Option/, 'option'));
  }
}

/** The credential options every API command takes. */
export const CREDENTIAL_OPTIONS: readonly OptionName[] = [
  'base-url',
  'partner-id',
  'partner-secret',
  'partner-secret-file',
  'partner-secret-stdin',
  'allow-insecure-http',
];

/** A usage error for any option given that `command` does not take. */
export function allowOnly(command: string, options: ParsedOptions, allowed: readonly OptionName[]): void {
  for (const name of Object.keys(options) as OptionName[]) {
    if (options[name] === undefined || name === 'help' || allowed.includes(name)) continue;
    throw usage(`--${name} is not an option of "${command}"`, command);
  }
}

/** The kind `--kind` (or `--withdrawal`) names, else `fallback`; a usage error for an unknown kind or none. */
export function kindOption(command: string, options: ParsedOptions, fallback?: StatusKind): StatusKind {
  const known = STATUS_KINDS.join(', ');
  const { kind, withdrawal } = options;
  if (withdrawal === true && kind !== undefined && kind !== 'withdrawal') {
    throw usage(`--withdrawal and --kind ${kind} name two kinds; --withdrawal is --kind withdrawal`, command);
  }
  const named = kind ?? (withdrawal === true ? 'withdrawal' : fallback);
  if (named === undefined) throw usage(`missing --kind <kind>: one of ${known}`, command);
  if (!isStatusKind(named)) throw usage(`unknown kind ${JSON.stringify(named)}: --kind takes one of ${known}`, command);
  return named;
}
