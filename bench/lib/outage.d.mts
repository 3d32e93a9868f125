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
