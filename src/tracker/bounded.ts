import { StatusStoreTimeoutError } from './errors.js';

/** `work`, or a StatusStoreTimeoutError once `ms` pass without its answer (its late answer is then ignored). */
export function bounded<T>(ms: number, operation: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StatusStoreTimeoutError(operation, ms)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
