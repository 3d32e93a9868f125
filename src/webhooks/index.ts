export type { ClaimResult, EventStore } from './store.js';
