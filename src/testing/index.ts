/**
 * `checkout-partner-sdk/testing`: a fake checkout service for tests, examples and local sandboxes,
 * and a fake payment provider that signs and delivers events. This entry loads msw (a peer
 * dependency, optional for the rest of the package): install it as a dev dependency. The CLI's
 * `checkout-partner sandbox` serves the same fake without msw.
 */
export { createFakeCheckout, FakeCheckout } from './fake-checkout.js';
export type { FakeCheckoutOptions } from './service.js';
export type { FakeCheckoutStats, FakeRequestRecord } from './request-log.js';
export type { FakePartner } from './partners.js';
export type { ChangeOptions } from './records.js';
export type { FailNextOptions, FaultStatus, FaultTarget } from './faults.js';
export type { FakeServer, ListenOptions } from './node-server.js';
export { REDACTED } from './responses.js';
export { deliverEvent, EventDeliveryError } from './deliver-event.js';
export type { DeliverEventOptions, Delivery, DeliveryAttempt, DeliveryReport } from './deliver-event.js';
export { createEvent, signEvent } from './sign-event.js';
export type { ProviderEvent, SignedEvent } from './sign-event.js';
