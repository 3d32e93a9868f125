import { jwtVerify, SignJWT } from 'jose';

export type TokenRejection = 'missing' | 'malformed' | 'invalid' | 'expired' | 'revoked';

export interface TokenClaims {
  readonly partnerId: string;
}

const ISSUER = 'checkout-partner-sdk/testing';

/** HS256 JWTs under a key of this fake's own, so a token of another fake (or of the service) never passes. */
export class TokenAuthority {
  readonly #key = crypto.getRandomValues(new Uint8Array(32));
  /** Tokens carry the generation they were issued in; `revokeAll()` moves past it. */
  #generation = 0;

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

  revokeAll(): void {
    this.#generation += 1;
  }
}
