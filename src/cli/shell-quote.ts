/** `value` as one POSIX shell word: single-quoted, each `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
