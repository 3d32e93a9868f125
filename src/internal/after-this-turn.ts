/**
 * Runs `work` once the event loop has run what it holds now (the callbacks of I/O that arrived
 * together, and the promises they settle), so what they all ask for can be done once:
 * `setImmediate` where the runtime has it, else a 0 ms timer.
 */
export const afterThisTurn: (work: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (work) => void globalThis.setImmediate(work) : (work) => void setTimeout(work, 0);
