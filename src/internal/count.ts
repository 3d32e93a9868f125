/** `1 attempt`, `3 attempts`: a count and its noun, plural unless the count is one. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
