/**
 * `checkout-partner-sdk/testing`: a fake checkout service and a fake payment provider, for tests and sandboxes.
 * This entry loads without msw: `fake.handlers()` loads it at its first call.
 */
export { createFakeCheckout, FakeCheckout } from './fake-checkout.js';
export type { FakeMswHandler } from './fake-checkout.js';
// types only: FakeCheckout's base class and the marker `respond` may return are not for partners to construct
export type { DROP_CONNECTION, FakeCheckoutCore } from './service.js';
export type { FailNextOptions, FaultMatcher, FaultRequest, FaultRequestKind, FaultStatus, FaultTarget } from './faults.js';
export type { ChangeOptions } from './records.js';
export type { FakeCheckoutStats, FakeKindReads, FakeRequestRecord, FakeStatusReads } from './request-log.js';
export type { ListenOptions } from './node-server.js';
export { MissingPeerDependencyError } from './load-msw.js';
export type { FakeCheckoutOptions } from './service.js';
export { defineFakeRoute } from './partner-routes.js';
export type {
  FakeKindRecords,
  FakeRecords,
  FakeRecordsByKind,
  FakeRoute,
  FakeRouteMethod,
  FakeRouteParamNames,
  FakeRouteParams,
  FakeRouteRequest,
  FakeRouteResponse,
} from './partner-routes.js';
export type { FakePartner } from './partners.js';
export type { FakeServer } from './node-server.js';
export { deliverEvent, EventDeliveryError } from './deliver-event.js';
export type { DeliverEventOptions, Delivery, DeliveryAttempt, DeliveryReport } from './deliver-event.js';
export { createEvent, signEvent } from './sign-event.js';
export type { ProviderEvent, SignedEvent } from './sign-event.js';
export { playTimeline } from './timeline.js';
export type { PlayingTimeline, TimelineKeyedStep, TimelineOptions, TimelineRecordStep, TimelineStep, TimelineTarget } from './timeline.js';
export { createProviderSimulator } from './provider-simulator.js';
export type { ProviderSimulator, ProviderSimulatorOptions, ProviderSimulatorStats } from './provider-simulator.js';
