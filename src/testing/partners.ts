import { typeName } from '../internal/type-name.js';

/** A partner account of the fake checkout service. */
export interface FakePartner {
  /** The partner's client id (`x-partner-id`). */
  partnerId: string;
  /** The partner's client secret (`x-partner-secret`). */
  partnerSecret: string;
  /** A disabled partner gets 401 from the token exchange, and its tokens stop working. @default true */
  enabled?: boolean | undefined;
  /** The account's `PartnerApiEnabled`: when false, the token exchange answers 401 and its tokens stop working. @default true */
  apiEnabled?: boolean | undefined;
}

export interface ResolvedPartner {
  readonly partnerId: string;
  readonly partnerSecret: string;
  readonly enabled: boolean;
  readonly apiEnabled: boolean;
}

/** A `TypeError` names what is wrong, never the secret. */
export function checkPartner(value: unknown, where = 'partner'): ResolvedPartner {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object, got ${typeName(value)}`);
  }
  const partner = value as Partial<Record<keyof FakePartner, unknown>>;
  if (typeof partner.partnerId !== 'string' || partner.partnerId === '') {
    throw new TypeError(`${where}.partnerId must be a non-empty string, got ${typeName(partner.partnerId)}`);
  }
  if (typeof partner.partnerSecret !== 'string' || partner.partnerSecret === '') {
    throw new TypeError(`${where}.partnerSecret must be a non-empty string`);
  }
  return {
    partnerId: partner.partnerId,
    partnerSecret: partner.partnerSecret,
    enabled: flag(partner.enabled, `${where}.enabled`),
    apiEnabled: flag(partner.apiEnabled, `${where}.apiEnabled`),
  };
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${typeName(value)}`);
  return value;
}
