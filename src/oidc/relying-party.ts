import * as client from 'openid-client';
import type { OidcProviderConfig } from '../config.js';
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH } from '../users/schema.js';
import { type AuthorizationChecks, OidcExchangeError, type VerifiedIdentity } from './contract.js';

const SCOPE = 'openid email profile';
// OpenID Connect Core limits "sub" to 255 ASCII characters.
const SUBJECT_MAX_LENGTH = 255;

/**
 * One discovered provider, as a relying party talks to it (openid-client does the protocol): the
 * authorization request (code flow, PKCE S256, state, nonce) and the exchange of the code, whose ID
 * token is checked for issuer, audience, signature, expiry and nonce.
 */
export class RelyingParty {
  /** The provider's signing keys, kept between sign-ins so each does not fetch them again. */
  #jwksCache: client.ExportedJWKSCache | undefined;

  constructor(
    readonly provider: OidcProviderConfig,
    private readonly server: client.ServerMetadata,
    private readonly redirectUri: string,
    private readonly requestTimeoutSeconds: number,
  ) {}

  /** Fresh values for one authorization request: state, nonce and PKCE verifier, and the verifier's S256 challenge. */
  async newChecks(): Promise<{ checks: AuthorizationChecks; codeChallenge: string }> {
    const checks: AuthorizationChecks = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
    return { checks, codeChallenge: await client.calculatePKCECodeChallenge(checks.codeVerifier) };
  }

  /**
   * The provider's page the browser is sent to. Makes no request. `promptLogin` asks the provider to
   * have the person sign in there even if it remembers them: linking must link the account the
   * person means, not whoever last used this browser at the provider.
   */
  authorizationUrl(checks: AuthorizationChecks, codeChallenge: string, now: Date, options: { promptLogin?: boolean } = {}): URL {
    return client.buildAuthorizationUrl(this.#configuration(now), {
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: SCOPE,
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
      ...(options.promptLogin === true ? { prompt: 'login' } : {}),
    });
  }

  /**
   * Checks the provider's answer at the callback (`callbackUrl`: the callback address with the query
   * the browser brought) and exchanges its code for tokens. `now` is the app's clock: the ID token's
   * expiry is judged by it. Throws OidcExchangeError for every failure a person may meet.
   */
  async exchange(callbackUrl: URL, checks: AuthorizationChecks, now: Date): Promise<VerifiedIdentity> {
    const configuration = this.#configuration(now);
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new OidcExchangeError('invalid', 'no_id_token');
      if (typeof claims.sub !== 'string' || claims.sub === '' || claims.sub.length > SUBJECT_MAX_LENGTH) throw new OidcExchangeError('invalid', 'bad_subject');
      let profile: Record<string, unknown> = claims;
      // Many providers keep the address out of the ID token of a code flow and answer it at the
      // userinfo endpoint; openid-client checks that its "sub" is the ID token's.
      if (typeof claims.email !== 'string' && this.server.userinfo_endpoint !== undefined) {
        profile = { ...(await client.fetchUserInfo(configuration, tokens.access_token, claims.sub)), sub: claims.sub };
      }
      return { subject: claims.sub, ...addressOf(profile), name: nameOf(profile) };
    } catch (error) {
      throw classify(error);
    } finally {
      this.#jwksCache = client.getJwksCache(configuration) ?? this.#jwksCache;
    }
  }

  /**
   * A configuration whose clock is the app's: openid-client judges token times by its own clock
   * plus `clockSkew`, so the skew carries the app's time in (nothing in production, where both are
   * the system's; a test's moved clock otherwise).
   */
  #configuration(now: Date): client.Configuration {
    const metadata: Partial<client.ClientMetadata> = { client_secret: this.provider.clientSecret, [client.clockSkew]: Math.round((now.getTime() - Date.now()) / 1000) };
    const configuration = new client.Configuration(this.server, this.provider.clientId, metadata, clientAuthentication(this.server, this.provider.clientSecret));
    configuration.timeout = this.requestTimeoutSeconds;
    // The configuration only allows an http issuer on a loopback address.
    if (this.provider.issuer.startsWith('http:')) client.allowInsecureRequests(configuration);
    if (this.#jwksCache !== undefined) client.setJwksCache(configuration, this.#jwksCache);
    return configuration;
  }
}

/**
 * Discovers a provider's metadata from its issuer (openid-client checks that the document names that
 * issuer). Throws OidcExchangeError('unreachable') when it cannot be had.
 */
export async function discoverProvider(provider: OidcProviderConfig, redirectUri: string, requestTimeoutSeconds: number): Promise<RelyingParty> {
  try {
    const discovered = await client.discovery(new URL(provider.issuer), provider.clientId, undefined, undefined, {
      timeout: requestTimeoutSeconds,
      execute: provider.issuer.startsWith('http:') ? [client.allowInsecureRequests] : [],
    });
    return new RelyingParty(provider, discovered.serverMetadata(), redirectUri, requestTimeoutSeconds);
  } catch (error) {
    const classified = classify(error);
    // Whatever stopped discovery, the provider cannot be used until it succeeds.
    throw classified.failure === 'unreachable' ? classified : new OidcExchangeError('unreachable', classified.reason);
  }
}

/** client_secret_basic, the default of the standard, unless the provider takes only client_secret_post. */
function clientAuthentication(server: client.ServerMetadata, secret: string): client.ClientAuth {
  const supported = server.token_endpoint_auth_methods_supported;
  if (supported !== undefined && !supported.includes('client_secret_basic') && supported.includes('client_secret_post')) return client.ClientSecretPost(secret);
  return client.ClientSecretBasic(secret);
}

function addressOf(profile: Record<string, unknown>): { email: string | null; emailVerified: boolean } {
  const email = typeof profile.email === 'string' ? profile.email.trim().toLowerCase() : '';
  if (email === '' || email.length > EMAIL_MAX_LENGTH || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return { email: null, emailVerified: false };
  return { email, emailVerified: profile.email_verified === true };
}

function nameOf(profile: Record<string, unknown>): string {
  const name = typeof profile.name === 'string' ? profile.name.trim() : '';
  return [...name].slice(0, NAME_MAX_LENGTH).join('');
}

/** Sorts what openid-client and fetch throw into what a person can act on; the reason is a code, never a message. */
function classify(error: unknown): OidcExchangeError {
  if (error instanceof OidcExchangeError) return error;
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcExchangeError(error.error === 'access_denied' ? 'cancelled' : 'refused', `authorization_${oauthErrorCode(error.error)}`);
  }
  if (error instanceof client.ResponseBodyError) {
    return new OidcExchangeError(error.status >= 500 ? 'unreachable' : 'refused', `token_${oauthErrorCode(error.error)}`);
  }
  if (error instanceof client.WWWAuthenticateChallengeError) return new OidcExchangeError('refused', 'www_authenticate_challenge');
  if (error instanceof client.ClientError) {
    const code = error.code ?? 'client_error';
    if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') return new OidcExchangeError('unreachable', code);
    // A provider answering 5xx or an HTML error page is a provider that is not working.
    if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON') return new OidcExchangeError('unreachable', code);
    if (error.cause instanceof TypeError) return new OidcExchangeError('unreachable', networkCode(error.cause));
    return new OidcExchangeError('invalid', code);
  }
  if (error instanceof TypeError) return new OidcExchangeError('unreachable', networkCode(error));
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) return new OidcExchangeError('unreachable', error.name);
  return new OidcExchangeError('invalid', error instanceof Error ? error.name : 'unknown');
}

/** An OAuth error code as the provider sent it, kept only if it looks like one (it reaches the log). */
function oauthErrorCode(value: unknown): string {
  return typeof value === 'string' && /^[a-z_]{1,64}$/.test(value) ? value : 'other';
}

/** fetch's "fetch failed" carries the system's reason (ECONNREFUSED, ENOTFOUND) as its cause. */
function networkCode(error: TypeError): string {
  const cause = error.cause;
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string') return cause.code;
  return 'network_error';
}
