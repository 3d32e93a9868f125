import { afterEach, describe, expect, it } from 'vitest';
import { anySignal } from '../../src/internal/abort.js';

// Next.js's Edge runtime has no AbortSignal.any: the linked fallback must abort with the first
// source's reason, and let go of a long-lived source once the work is done.
const native = AbortSignal.any;
afterEach(() => {
  AbortSignal.any = native;
});

describe('anySignal without AbortSignal.any (the Edge runtime)', () => {
  it("aborts with the first source's reason", () => {
    Reflect.deleteProperty(AbortSignal, 'any');
    expect(typeof AbortSignal.any).toBe('undefined');
    const caller = new AbortController();
    const deadline = new AbortController();
    const { signal } = anySignal([caller.signal, deadline.signal]);
    deadline.abort('deadline');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('deadline');
  });

  it('is aborted at once when a source already is', () => {
    Reflect.deleteProperty(AbortSignal, 'any');
    const { signal } = anySignal([AbortSignal.abort('early'), new AbortController().signal]);
    expect(signal.reason).toBe('early');
  });

  it('released, it no longer follows its sources', () => {
    Reflect.deleteProperty(AbortSignal, 'any');
    const caller = new AbortController();
    const { signal, release } = anySignal([caller.signal, new AbortController().signal]);
    release();
    caller.abort('later');
    expect(signal.aborted).toBe(false);
  });
});
