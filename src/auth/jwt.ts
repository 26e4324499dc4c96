import { createSigner, createVerifier } from 'fast-jwt';
import type { Cache, CacheNamespace } from '../cache/cache.js';
import { newId } from '../lib/ids.js';
import type { Clock } from '../lib/clock.js';

/** JWT lifetime fixed by the spec: seven days. */
export const JWT_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

/** Tolerated difference between app servers' clocks when reading `iat`. */
const CLOCK_SKEW_SECONDS = 60;

export interface JwtClaims {
  sub: string;
  /** The user's JWT generation at issue; see users.jwt_generation. */
  gen: number;
  iat: number;
  exp: number;
  iss: string;
  /** The service the token is for: PUBLIC_URL's origin, as `iss` (a string or, per RFC 7519, a list holding it). */
  aud: string | string[];
  jti: string;
  /**
   * When the person proved who they are (sign-in or re-authentication), Unix seconds; the name
   * OpenID Connect gives it. A token from before the claim existed was issued at sign-in, so its
   * `iat` stands in.
   */
  auth_time: number;
}

/**
 * What a checked token tells the server: who, which generation, and the times judged on every
 * request. Issuer, audience and id are checked once with the signature and not kept.
 */
export type VerifiedJwt = Readonly<Pick<JwtClaims, 'sub' | 'gen' | 'iat' | 'exp' | 'auth_time'>>;

/**
 * What a kept VerifiedJwt holds, for the cache's bound: the object and its `sub` string (measured
 * by bench/cache-memory.ts --kind jwt). The token text, its key, is counted by the cache.
 */
export const VERIFIED_JWT_BYTES = 250;

export interface IssuedJwt {
  token: string;
  expiresAt: Date;
}

export class InvalidJwtError extends Error {
  override name = 'InvalidJwtError';
}

/**
 * HS256 JWTs, signed and verified synchronously (fast-jwt): an asynchronous WebCrypto verify costs
 * a trip through the thread pool on every request (docs/decisions/auth-jwt.md). The algorithm is pinned, so "alg: none" and key
 * confusion are refused; expiry is checked against the injected clock. Issuer and audience are
 * both PUBLIC_URL's origin and both are required and checked: a token another service signed with
 * a shared JWT_SECRET, or one made for another deployment, names another audience (or none) and is
 * refused (ASVS 9.2.3).
 */
export class JwtService {
  readonly #sign: (payload: Record<string, unknown>) => string;
  readonly #verify: (token: string) => unknown;
  /**
   * Token text → what its signature and claims proved, so a repeat caller skips the HMAC. In the
   * app's cache, so that CACHE_MB bounds it with the rest of what the process keeps. A token
   * cannot change, so what its signature proved once it proves again; only expiry (checked in
   * verify) and revocation (the guard) can turn it bad, and both are checked on every request.
   * Kept under the token itself: a memory dump that reveals it reveals JWT_SECRET too, so it
   * exposes nothing new. Not fast-jwt's own cache: that one hashes every token to make its key,
   * which costs nearly as much as the HMAC it saves (docs/decisions/auth-jwt.md).
   */
  readonly #verified: CacheNamespace<VerifiedJwt> | undefined;

  constructor(
    secret: string,
    private readonly issuer: string,
    private readonly clock: Clock,
    /** Where checked tokens are kept; none for a service that only signs, or checks each anew. */
    cache?: Cache,
  ) {
    this.#verified = cache?.namespace('verified-jwt');
    const key = Buffer.from(secret, 'utf8');
    // iat and exp come in the payload, computed from the injected clock.
    this.#sign = createSigner({ key, algorithm: 'HS256' });
    this.#verify = createVerifier({
      key,
      algorithms: ['HS256'],
      allowedIss: issuer,
      allowedAud: issuer,
      requiredClaims: ['sub', 'gen', 'iat', 'exp', 'iss', 'aud', 'jti'],
      // Time is judged below, against the injected clock, not the verifier's own.
      ignoreExpiration: true,
      ignoreNotBefore: true,
    });
  }

  /** A token for a person who proved who they are just now. */
  issue(userId: string, generation: number): IssuedJwt {
    const now = this.clock.now();
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + JWT_LIFETIME_SECONDS;
    const token = this.#sign({ sub: userId, gen: generation, iat, exp, iss: this.issuer, aud: this.issuer, jti: newId(now), auth_time: iat });
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** Returns the claims of a valid token, or throws InvalidJwtError saying why it is not. */
  verify(token: string): VerifiedJwt {
    let claims = this.#verified?.get(token);
    if (claims === undefined) {
      claims = this.#verifySignature(token);
      // Read from no row: no tags, and never stale by time (expiry is judged below).
      this.#verified?.set(token, claims, { tags: [], size: VERIFIED_JWT_BYTES, epoch: this.#verified.epoch, expires: false });
    }
    const nowSeconds = this.clock.now().getTime() / 1000;
    if (claims.exp <= nowSeconds) throw new InvalidJwtError('expired');
    if (claims.iat > nowSeconds + CLOCK_SKEW_SECONDS) throw new InvalidJwtError('issued in the future');
    if (claims.exp - claims.iat > JWT_LIFETIME_SECONDS) throw new InvalidJwtError('lifetime too long');
    return claims;
  }

  /** The algorithm, signature, issuer, audience and the claims' presence and types; time is judged by verify. */
  #verifySignature(token: string): VerifiedJwt {
    let claims: unknown;
    try {
      claims = this.#verify(token);
    } catch (error) {
      throw new InvalidJwtError((error as { code?: string }).code ?? 'invalid');
    }
    if (!isClaims(claims)) throw new InvalidJwtError('malformed claims');
    // A proof of the person cannot postdate the token that records it.
    const { auth_time: authTime = claims.iat } = claims as { auth_time?: unknown };
    if (typeof authTime !== 'number' || !Number.isInteger(authTime) || authTime > claims.iat) throw new InvalidJwtError('malformed auth_time');
    // Shared by every request that sends this token: frozen so no caller can alter another's view.
    return Object.freeze({ sub: claims.sub, gen: claims.gen, iat: claims.iat, exp: claims.exp, auth_time: authTime });
  }
}

function isClaims(value: unknown): value is Omit<JwtClaims, 'auth_time'> {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.sub === 'string' &&
    typeof claims.iss === 'string' &&
    typeof claims.jti === 'string' &&
    Number.isInteger(claims.gen) &&
    Number.isInteger(claims.iat) &&
    Number.isInteger(claims.exp)
  );
}

/** A JWT has three base64url segments; a personal access token never does. */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential);
}
