import { jwtVerify, SignJWT } from 'jose';

/** Why a Bearer token was refused; becomes the 401's message. */
export type TokenRejection = 'missing' | 'malformed' | 'invalid' | 'expired' | 'revoked';

/** What a valid token says. */
export interface TokenClaims {
  readonly partnerId: string;
}

const ISSUER = 'checkout-partner-sdk/testing';

/**
 * The fake's access tokens: HS256 JWTs signed with a key made for this fake alone, so a token of
 * one fake (or of the real service) never passes another. `revokeAll()` makes every token issued
 * so far fail, as a key rotation on the service would.
 */
export class TokenAuthority {
  readonly #key = crypto.getRandomValues(new Uint8Array(32));
  /** Tokens carry the generation they were issued in; `revokeAll()` moves past it. */
  #generation = 0;

  /** A new token for `partnerId`, valid for `ttlSeconds` from now. */
  async issue(partnerId: string, ttlSeconds: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ gen: this.#generation })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(partnerId)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(crypto.randomUUID())
      .sign(this.#key);
  }

  /** The claims of a valid `Authorization` header value, or why it is refused. */
  async verify(authorization: string | null): Promise<TokenClaims | TokenRejection> {
    if (authorization === null || authorization.trim() === '') return 'missing';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (match?.[1] === undefined) return 'malformed';
    try {
      const { payload } = await jwtVerify(match[1], this.#key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: new Date(),
        requiredClaims: ['sub', 'exp'],
      });
      if (payload.gen !== this.#generation) return 'revoked';
      return { partnerId: String(payload.sub) };
    } catch (error) {
      return (error as { code?: unknown }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid';
    }
  }

  /** Every token issued so far stops working. */
  revokeAll(): void {
    this.#generation += 1;
  }
}
