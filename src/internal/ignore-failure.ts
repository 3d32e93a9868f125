/** Calls a partner's hook (a logger), ignoring a throw or a rejection: it must not change what the SDK does. */
export function ignoreFailure(call: () => unknown): void {
  try {
    const result = call();
    if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
      (result as PromiseLike<unknown>).then(undefined, () => undefined);
    }
  } catch {
    // ignored
  }
}
