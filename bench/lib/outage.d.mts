// Types of outage.mjs, for scripts/load/outage.ts.
export interface OutageResult {
  budget: boolean;
  callers: number;
  thinkMs: number;
  downSeconds: number;
  upSeconds: number;
  calls: number;
  requestsPerCallFirstSeconds: number;
  requestsPerCallInOutage: number;
  attemptsPerFailedCallInOutage: number;
  requestsFirstSecondAfterRecovery: number;
  callsFailedAfterRecovery: number;
  recoveryMs: number;
  successesAfterRecovery: number;
}
export interface SilentResult {
  ratePerSecond: number;
  seconds: number;
  calls: number;
  maxOpenSockets: number;
  heapGrowthMB: number;
  requestsIn2sAfterRecovery: number;
  worstLatePastDeadlineMs: number;
  eventLoopMaxDelayMs: number;
}
export function outage(options: {
  CheckoutClient: unknown;
  budget: boolean;
  callers?: number;
  thinkMs?: number;
  downSeconds: number;
  upSeconds: number;
  settleSeconds?: number;
}): Promise<OutageResult>;
export function silent(options: {
  CheckoutClient: unknown;
  ratePerSecond?: number;
  seconds: number;
  callTimeoutMs?: number;
  rateLimit?: object;
}): Promise<SilentResult>;
export interface ConvoyResult {
  callers: number;
  seconds: number;
  concurrency: number;
  timeoutMs: number;
  elapsedMs: number;
  calls: number;
  unsent: number;
  timedOut: number;
  other: number;
  requests: number;
  bound: number;
  maxOpenSockets: number;
  connections: number;
}
export function convoy(options: {
  CheckoutClient: unknown;
  callers: number;
  seconds: number;
  concurrency: number;
  timeoutMs: number;
}): Promise<ConvoyResult>;
export function waiterHeap(options: { CheckoutClient: unknown; waiters: number }): Promise<{ waiters: number; heapPerWaiterBytes: number }>;
