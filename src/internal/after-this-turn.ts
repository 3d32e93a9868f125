/** Runs `work` after the I/O callbacks queued now and the promises they settle, so what they all ask for is done once. */
export const afterThisTurn: (work: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (work) => void globalThis.setImmediate(work) : (work) => void setTimeout(work, 0);
