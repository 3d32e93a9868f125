/**
 * The checkout service for the soak (a child process of run.ts): `createFakeCheckout().listen()`
 * from the BUILT testing kit, holding the order or withdrawal of every soak event. Prints
 * `FAKE-URL <origin>` once listening; exits when its parent disconnects or on SIGTERM.
 */
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { PARTNER_ID, PARTNER_SECRET, soakRecord } from './events.js';

const events = Number(process.env.SOAK_EVENTS ?? 10_000);
const fake = createFakeCheckout({
  partners: [{ partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET }],
  tokenTtlSeconds: 3600,
  maxLoggedRequests: 10,
});
for (let i = 0; i < events; i++) {
  const record = soakRecord(i);
  if (record.kind === 'order') fake.setOrder(record.order);
  else fake.setWithdrawal(record.withdrawal);
}
const server = await fake.listen({ host: '127.0.0.1' });
process.stdout.write(`FAKE-URL ${server.url}\n`);

const stop = () => {
  void server.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(1), 3000).unref();
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
