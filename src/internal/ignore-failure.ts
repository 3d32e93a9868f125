/**
 * Calls `call` and ignores how it fails: a throw, or a returned promise (thenable) that rejects.
 * For the partner's own hooks, such as loggers, that must never change what the SDK does: an
 * async logger's rejection would otherwise be an unhandled rejection, which ends a Node process.
 */
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
