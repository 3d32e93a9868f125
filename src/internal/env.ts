/** An environment variable where the runtime has `process.env` (Node, Bun, Deno); `undefined` elsewhere (Workers). */
export function env(name: string): string | undefined {
  const processLike = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  try {
    const value = processLike?.env?.[name];
    return value === '' ? undefined : value;
  } catch {
    return undefined; // Deno without --allow-env throws
  }
}
