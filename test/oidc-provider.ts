import { createHash, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata, type Configuration, type JWK } from 'oidc-provider';
import type { App } from '../src/http/types.js';

/** What the test provider says about one of its people. `login` at its form is their "sub". */
export interface TestAccount {
  email?: string;
  /** Left out: the claim is not sent at all. */
  email_verified?: boolean;
  name?: string;
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface TestOidcProviderOptions {
  clients: TestClient[];
  accounts: Record<string, TestAccount>;
  /** How long its ID tokens live (oidc-provider's default is an hour). */
  idTokenTtlSeconds?: number;
  /** A private signing key (JWK) to use instead of a fresh one: two providers can then share one. */
  signingKey?: JWK;
}

/** The answer of a token endpoint, as the provider sent it. */
export type TokenResponse = Record<string, unknown>;

export interface TestOidcProvider {
  /** http://127.0.0.1:PORT, the same across stop() and start(). */
  issuer: string;
  /** Its people, by login; a test may change them between sign-ins. */
  accounts: Record<string, TestAccount>;
  /** The private key its tokens are signed with. */
  signingKey: JWK;
  /** Signs in at the provider as `login` through its development login form, starting from the
   * authorization URL a relying party made; resolves the URL the provider sends the browser back
   * to (the relying party's callback with code, state and iss), without following it. With
   * `cancel`, the person aborts at the login form instead (error=access_denied). */
  authorize(authorizationUrl: string, login: string, options?: { cancel?: boolean }): Promise<URL>;
  /**
   * Runs a whole code flow as another relying party would (the test is the client): real tokens,
   * issued by this provider for `client`, with the nonce given. What a hostile relay could swap in.
   */
  issueTokens(client: TestClient, login: string, nonce: string): Promise<TokenResponse>;
  /** The next answer of its token endpoint is replaced by `body` (the request itself is still made). */
  replaceNextTokenResponse(body: TokenResponse): void;
  /** How many requests its token endpoint has received. */
  tokenRequests(): number;
  /** Stops listening: connections are refused, as from a provider that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (oidc-provider, the certified implementation) on 127.0.0.1 with a free
 * port, for the tests: its clients and people are the test's, consent is granted as a company's own
 * provider grants it to its own apps, and its development login form signs anyone in by name.
 */
export async function startOidcProvider(options: TestOidcProviderOptions): Promise<TestOidcProvider> {
  const server = createServer();
  // Idle connections are the client's to close. With node's 5-second default, the server may drop
  // one just as the app's fetch reuses it (both in this process, on a busy machine): ECONNRESET,
  // and a sign-in refused as if the provider were down.
  server.keepAliveTimeout = 0;
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = options.accounts;
  const signingKey = options.signingKey ?? freshSigningKey();
  let replacement: TokenResponse | undefined;
  let tokenRequestCount = 0;

  const configuration: Configuration = {
    clients: options.clients.map((client): ClientMetadata => ({ ...client, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['authorization_code'], response_types: ['code'] })),
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    ttl: { IdToken: options.idTokenTtlSeconds ?? 3600, AccessToken: 3600, AuthorizationCode: 60, Session: 3600, Interaction: 600, Grant: 3600 },
    async findAccount(_ctx, id) {
      const account = accounts[id];
      if (account === undefined) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    // A company's provider does not ask its people to consent to its own applications.
    async loadExistingGrant(ctx) {
      const session = ctx.oidc.session;
      const client = ctx.oidc.client;
      if (session?.accountId === undefined || client === undefined) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email profile');
      grant.addOIDCClaims(['email', 'email_verified', 'name']);
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path !== '/token') return;
    tokenRequestCount++;
    if (replacement !== undefined) {
      ctx.body = replacement;
      replacement = undefined;
    }
  });
  server.on('request', provider.callback());

  return {
    issuer,
    accounts,
    signingKey,
    authorize: (authorizationUrl, login, authorizeOptions = {}) => drive(issuer, authorizationUrl, login, authorizeOptions.cancel === true),
    issueTokens: (client, login, nonce) => issueTokens(issuer, client, login, nonce),
    replaceNextTokenResponse(body) {
      replacement = body;
    },
    tokenRequests: () => tokenRequestCount,
    stop: () => stopListening(server),
    start: () => listen(server, port),
    close: async () => {
      if (server.listening) await stopListening(server);
    },
  };
}

function freshSigningKey(): JWK {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk: JsonWebKey = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' } as JWK;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A browser's cookie jar for one origin, as much of one as the provider's pages need. */
class CookieJar {
  readonly #cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

const MAX_STEPS = 20;

/**
 * Follows the provider's redirects and pages as a browser would, with a cookie jar, and fills in
 * its login form (or aborts it), until the provider sends the browser somewhere else: that URL.
 */
async function drive(issuer: string, start: string, login: string, cancel: boolean): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(start);
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let step = 0; step < MAX_STEPS; step++) {
    if (url.origin !== new URL(issuer).origin) return url;
    const response = await fetch(url, { method, redirect: 'manual', headers: { cookie: jar.header() }, ...(body === undefined ? {} : { body }) });
    jar.take(response);
    method = 'GET';
    body = undefined;
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      url = new URL(location, url);
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (action === undefined) throw new Error(`no form on the provider's page ${url.pathname}`);
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
    if (prompt === 'login' && cancel) {
      url = new URL(`${url.pathname.replace(/\/$/, '')}/abort`, url);
      continue;
    }
    url = new URL(action.replaceAll('&amp;', '&'), url);
    method = 'POST';
    body = prompt === 'login' ? new URLSearchParams({ prompt: 'login', login, password: 'any password' }) : new URLSearchParams({ prompt: prompt ?? 'consent' });
  }
  throw new Error('the provider kept the browser for too many steps');
}

async function issueTokens(issuer: string, client: TestClient, login: string, nonce: string): Promise<TokenResponse> {
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = client.redirect_uris[0] ?? '';
  const authorization = new URL(`${issuer}/auth`);
  authorization.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    state: randomBytes(16).toString('base64url'),
    nonce,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const callback = await drive(issuer, authorization.href, login, false);
  const code = callback.searchParams.get('code');
  if (code === null) throw new Error(`the provider sent no code: ${callback.href}`);
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  if (response.status !== 200) throw new Error(`the token endpoint answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as TokenResponse;
}

/** A sign-in through a provider, started at Siteward: where the browser goes, and its binding cookie. */
export interface StartedSignIn {
  /** The provider's authorization URL Siteward redirected to. */
  location: URL;
  /** "siteward_oidc=…", for the Cookie header of the callback. */
  browser: string;
}

/** GET /auth/oidc/{provider}/start as a browser would (with the binding cookie it may already hold). */
export async function startSignIn(app: App, provider: string, options: { next?: string; browser?: string } = {}): Promise<StartedSignIn> {
  const query = options.next === undefined ? '' : `?next=${encodeURIComponent(options.next)}`;
  const response = await app.inject({ method: 'GET', url: `/auth/oidc/${provider}/start${query}`, headers: options.browser === undefined ? {} : { cookie: options.browser } });
  if (response.statusCode !== 302) throw new Error(`starting a sign-in failed: ${response.statusCode} ${response.body.slice(0, 300)}`);
  const browser = [response.headers['set-cookie'] ?? []].flat().find((line) => /^(__Host-)?siteward_oidc=/.test(line))?.split(';')[0];
  if (browser === undefined) throw new Error('no binding cookie was set');
  return { location: new URL(String(response.headers.location)), browser };
}

/** The provider's redirect back to Siteward, followed as the browser holding `browser` would. */
export function finishSignIn(app: App, callback: URL, browser: string | undefined, extraCookies: string[] = []) {
  const cookie = [...(browser === undefined ? [] : [browser]), ...extraCookies].join('; ');
  return app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: cookie === '' ? {} : { cookie } });
}

/** The whole round trip: start at Siteward, sign in at the provider as `login`, come back. */
export async function signInThroughProvider(app: App, idp: TestOidcProvider, login: string, options: { provider?: string; next?: string } = {}) {
  const started = await startSignIn(app, options.provider ?? 'oidc', options.next === undefined ? {} : { next: options.next });
  const callback = await idp.authorize(started.location.href, login);
  return finishSignIn(app, callback, started.browser);
}

/** The reference code a failure page shows. */
export function pageCode(html: string): string | undefined {
  return /Reference: ([a-z_]+)/.exec(html)?.[1];
}
