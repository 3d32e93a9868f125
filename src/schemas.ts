import * as z from 'zod/mini';
import type { ValidationIssue } from './errors.js';

/** A string whose known values autocomplete while any other is accepted, as the service may add states. @inline */
export type KnownString<Known extends string> = Known | (string & {});

const knownString = <Known extends string>(): z.ZodMiniType<KnownString<Known>, KnownString<Known>> => z.string();

/** Settlement states the spec names. Any other string is accepted too. */
export type SettlementStatus = KnownString<'Settled'>;
/** Withdrawal states the spec names. Any other string is accepted too. */
export type WithdrawalStatus = KnownString<'Completed'>;
/** Currencies the spec names (`BRZ` means no crypto swap). Any other string is accepted too. */
export type Currency = KnownString<'BRZ'>;

const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** The response of POST /auth/token. */
export const TokenResponseSchema = z.looseObject({
  /** The access token (a JWT) for `Authorization: Bearer`: visible ASCII only, so always a valid header value. Secret. */
  accessToken: z
    .string()
    .check(z.refine((value) => VISIBLE_ASCII.test(value), 'accessToken must be a non-empty token of visible ASCII characters')),
  /** The token's scheme: `Bearer`, in any case (RFC 6749 §7.1). */
  tokenType: z.string().check(z.refine((value) => value.toLowerCase() === 'bearer', 'tokenType must be "Bearer"')),
  /** The token's lifetime in whole seconds from the exchange, at least 1. */
  expiresIn: z
    .number()
    .check(z.refine((value) => Number.isSafeInteger(value) && value >= 1, 'expiresIn must be a whole number of seconds, at least 1')),
});
/** The response of POST /auth/token. */
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

const SettlementSchema = z.looseObject({
  /** The settlement state: `Settled` once the crypto swap settled; other states may appear. */
  status: z.optional(knownString<'Settled'>()),
  /** The provider's trade id; `null` for BRZ orders, which have no crypto swap. */
  tradeId: z.optional(z.nullable(z.string())),
});

/** An order as GET /orders/by-external-id/{externalId} returns it; unknown fields are kept. */
export const OrderSchema = z.looseObject({
  /** The partner's own id of the order, as given when it was created. */
  externalId: z.string(),
  /** The order's currency (`BRZ` means no crypto swap); other currencies may appear. */
  currency: z.optional(knownString<'BRZ'>()),
  /** The order's settlement, when the service reports one. */
  settlement: z.optional(z.nullable(SettlementSchema)),
});
/** An order as the service returns it; every field it sends is kept, known or not. */
export type Order = z.infer<typeof OrderSchema>;
/** An order's settlement: `status` is `Settled` once its crypto swap settled; `tradeId` is null for BRZ. */
export type Settlement = NonNullable<Order['settlement']>;

/** A withdrawal as GET /withdrawals/by-external-id/{externalId} returns it; unknown fields are kept. */
export const WithdrawalSchema = z.looseObject({
  /** The partner's own id of the withdrawal, as given when it was created. */
  externalId: z.string(),
  /** The withdrawal state: `Completed` once paid out; other states may appear. */
  status: knownString<'Completed'>(),
});
/** A PIX withdrawal as the service returns it; every field it sends is kept, known or not. */
export type Withdrawal = z.infer<typeof WithdrawalSchema>;

/** GET /auth/me: the spec does not show its body, so any JSON object is accepted and kept. */
export const MeSchema = z.looseObject({});
/** What GET /auth/me returns: an object whose shape the spec does not fix. */
export type Me = z.infer<typeof MeSchema>;

/** A Standard Schema v1 validator (https://standardschema.dev), as zod 4, valibot and arktype carry; `request({ schema })` takes one. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema interface. */
  readonly '~standard': {
    /** The version of the Standard Schema spec: 1. */
    readonly version: 1;
    /** The library that made the schema, e.g. `zod`. */
    readonly vendor: string;
    /** Validates `value`: the typed value, or the issues (possibly asynchronously). */
    readonly validate: (value: unknown) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    /** The input and output types, for inference only. */
    readonly types?: StandardSchemaTypes<Input, Output> | undefined;
  };
}

/** The types a {@link StandardSchemaV1} validator takes and gives, for inference only. */
export interface StandardSchemaTypes<Input, Output> {
  /** What the validator takes. */
  readonly input: Input;
  /** What it gives. */
  readonly output: Output;
}

/** A segment of a Standard Schema issue's path, as an object. */
export interface StandardPathSegment {
  /** The key of this segment. */
  readonly key: PropertyKey;
}

/** What a {@link StandardSchemaV1} validator returns. */
export type StandardSchemaResult<Output> =
  | {
      /** The validated value. */
      readonly value: Output;
      /** No issues: the value matched. */
      readonly issues?: undefined;
    }
  | {
      /** Why the value did not match. */
      readonly issues: readonly {
        /** What did not match, in words. */
        readonly message: string;
        /** Where: keys (or `{ key }` segments) from the root. */
        readonly path?: readonly (PropertyKey | StandardPathSegment)[] | undefined;
      }[];
    };

/** A schema a 2xx body must match: a zod schema (its `safeParse`) or any Standard Schema v1 validator. */
export type ResponseSchema<T> = ParseSchema<T> | StandardSchemaV1<unknown, T>;

/** Anything with zod's `safeParse`: the schemas above, or a partner's own for `request()`. */
export interface ParseSchema<T> {
  /** Parses `data`: the typed value, or the issues that did not match (as zod's `safeParse`). */
  safeParse(data: unknown): ParseResult<T>;
}

/** What {@link ParseSchema.safeParse} returns. */
export type ParseResult<T> =
  | {
      /** The data matched. */
      success: true;
      /** The parsed value. */
      data: T;
    }
  | {
      /** The data did not match. */
      success: false;
      /** Why: zod-style issues. */
      error: {
        /** One entry per mismatch. */
        issues: readonly ValidationIssue[];
      };
    };
