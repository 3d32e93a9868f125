// The provider event types, named by the webhook handler, the tracker and the status stores alike
// (a store keeps a nudge's event): in a file of their own, outside every feature.

/**
 * What every event carries: its `eventId`, its `type`, and every other field as the provider sent it.
 *
 * @inline
 */
export interface WebhookEventBase {
  /** The provider's id of this event; redeliveries carry the same one, so it is the deduplication key. */
  readonly eventId: string;
  /** The event's type, e.g. `otc.trade.settled` (taken from `event` when the payload names it so). */
  readonly type: string;
  /** Any other field, as sent. */
  readonly [field: string]: unknown;
}

/**
 * A crypto swap settled: confirmed once the order's `settlement.status` is `Settled` with this
 * event's `tradeId`. An event without a string `tradeId` is accepted but never confirmed.
 *
 * @inline
 */
export interface OtcTradeSettledEvent extends WebhookEventBase {
  readonly type: 'otc.trade.settled';
  /**
   * The trade, as returned by the payment operation (also the order's `settlement.tradeId`).
   * Absent or `null` when the provider sent none; `parseEvent` rejects any other non-string.
   */
  readonly tradeId?: string | null;
}

/**
 * A crypto swap was cancelled.
 *
 * @inline
 */
export interface OtcTradeCancelledEvent extends WebhookEventBase {
  readonly type: 'otc.trade.cancelled';
  /**
   * The trade, as returned by the payment operation (also the order's `settlement.tradeId`).
   * Absent or `null` when the provider sent none; `parseEvent` rejects any other non-string.
   */
  readonly tradeId?: string | null;
}

/**
 * A PIX deposit event (`pix.deposit.*`); its order is read and handed over (never `confirmed`).
 * The spec correlates it with the order by `endUserId`, or by a tag `user:{orderId}` (read it with
 * `tagValue(event, 'user')`).
 *
 * @inline
 */
export interface PixDepositEvent extends WebhookEventBase {
  readonly type: `pix.deposit.${string}`;
  /**
   * The end user the deposit is for, as the provider sent it. Absent or `null` when the provider
   * sent none; `parseEvent` rejects any other non-string.
   */
  readonly endUserId?: string | null;
  /**
   * The provider's tags, each `key:value` (e.g. `user:{orderId}`). Absent or `null` when the
   * provider sent none; `parseEvent` rejects anything but an array of strings.
   */
  readonly tags?: readonly string[] | null;
}

/**
 * A PIX withdrawal event (`pix.withdrawal.*`); `pix.withdrawal.settled` is confirmed once the withdrawal is `Completed`.
 *
 * @inline
 */
export interface PixWithdrawalEvent extends WebhookEventBase {
  readonly type: `pix.withdrawal.${string}`;
}

/**
 * The events the spec names, by type (a `prefix.*` key stands for every type under it): the event
 * types table (src/event-types.ts) must have an entry for each.
 *
 * @internal
 */
export interface KnownEventTypes {
  'otc.trade.settled': OtcTradeSettledEvent;
  'otc.trade.cancelled': OtcTradeCancelledEvent;
  'pix.deposit.*': PixDepositEvent;
  'pix.withdrawal.*': PixWithdrawalEvent;
}

/** The events the spec names. */
export type KnownWebhookEvent = KnownEventTypes[keyof KnownEventTypes];

/**
 * A verified provider event. Known types are typed; any other type is accepted as a base event
 * (`eventId`, `type` and every other field as sent). Narrow with {@link isEventType} (a plain
 * `event.type === '…'` cannot narrow away the open-ended member).
 */
export type WebhookEvent = KnownWebhookEvent | WebhookEventBase;

/**
 * The event type {@link isEventType} narrows to for `type`, read from `KnownEventTypes`: the
 * type's own entry, else that of the `prefix.*` it falls under (with `type` as given), else the
 * base event with `type`.
 */
export type EventOfType<T extends string> =
  T extends Exclude<keyof KnownEventTypes, `${string}.*`>
    ? KnownEventTypes[T]
    : {
          [P in keyof KnownEventTypes]: P extends `${infer Prefix}.*`
            ? T extends `${Prefix}.${string}`
              ? KnownEventTypes[P] & {
                  /** The event's type, as given to {@link isEventType}. */
                  readonly type: T;
                }
              : never
            : never;
        }[keyof KnownEventTypes] extends infer UnderPrefix
      ? [UnderPrefix] extends [never]
        ? WebhookEventBase & {
            /** The event's type, as given to {@link isEventType}. */
            readonly type: T;
          }
        : UnderPrefix
      : never;
