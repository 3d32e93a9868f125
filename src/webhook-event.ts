/** What every event carries: its `eventId`, its `type`, and every other field as the provider sent it. @inline */
export interface WebhookEventBase {
  /** The provider's id of this event; redeliveries carry the same one, so it is the deduplication key. */
  readonly eventId: string;
  /** The event's type, e.g. `otc.trade.settled` (taken from `event` when the payload names it so). */
  readonly type: string;
  /** Any other field, as sent. */
  readonly [field: string]: unknown;
}

/** A crypto swap settled: confirmed once the order is `Settled` with this event's `tradeId` (never without one). @inline */
export interface OtcTradeSettledEvent extends WebhookEventBase {
  readonly type: 'otc.trade.settled';
  /** The trade (also the order's `settlement.tradeId`); absent or `null` when the provider sent none. */
  readonly tradeId?: string | null;
}

/** A crypto swap was cancelled. @inline */
export interface OtcTradeCancelledEvent extends WebhookEventBase {
  readonly type: 'otc.trade.cancelled';
  /** The trade (also the order's `settlement.tradeId`); absent or `null` when the provider sent none. */
  readonly tradeId?: string | null;
}

/** A PIX deposit event: its order, tied by `endUserId` or a tag `user:{orderId}`, is read and handed over, never `confirmed`. @inline */
export interface PixDepositEvent extends WebhookEventBase {
  readonly type: `pix.deposit.${string}`;
  /** The end user the deposit is for; absent or `null` when the provider sent none. */
  readonly endUserId?: string | null;
  /** The provider's tags, each `key:value` (e.g. `user:{orderId}`); absent or `null` when the provider sent none. */
  readonly tags?: readonly string[] | null;
}

/** A PIX withdrawal event; `pix.withdrawal.settled` is confirmed once the withdrawal is `Completed`. @inline */
export interface PixWithdrawalEvent extends WebhookEventBase {
  readonly type: `pix.withdrawal.${string}`;
}

/** The events the spec names, by type (`prefix.*` for every type under it); the event types table has an entry for each. @internal */
export interface KnownEventTypes {
  'otc.trade.settled': OtcTradeSettledEvent;
  'otc.trade.cancelled': OtcTradeCancelledEvent;
  'pix.deposit.*': PixDepositEvent;
  'pix.withdrawal.*': PixWithdrawalEvent;
}

/** The events the spec names. */
export type KnownWebhookEvent = KnownEventTypes[keyof KnownEventTypes];

/** A verified provider event; narrow with {@link isEventType}, as `event.type === '…'` cannot narrow away the open-ended member. */
export type WebhookEvent = KnownWebhookEvent | WebhookEventBase;

/** What {@link isEventType} narrows to: the type's own entry, else its `prefix.*` entry, else the base event, with `type`. */
export type EventOfType<T extends string> =
  T extends Exclude<keyof KnownEventTypes, `${string}.*`>
    ? KnownEventTypes[T]
    : {
          // P is not narrowed by a conditional: TypeScript 5.4 refuses to index KnownEventTypes with a narrowed P
          [P in keyof KnownEventTypes]: T extends (P extends `${infer Prefix}.*` ? `${Prefix}.${string}` : never)
            ? KnownEventTypes[P] & {
                /** The event's type, as given to {@link isEventType}. */
                readonly type: T;
              }
            : never;
        }[keyof KnownEventTypes] extends infer UnderPrefix
      ? [UnderPrefix] extends [never]
        ? WebhookEventBase & {
            /** The event's type, as given to {@link isEventType}. */
            readonly type: T;
          }
        : UnderPrefix
      : never;
