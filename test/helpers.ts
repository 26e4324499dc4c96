import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { type AppOptions, buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { type DatabaseHandle, openDatabase } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { NO_CHANGE_FEED } from '../src/cache/change-feed.js';
import { CHANGE_CHANNEL } from '../src/cache/postgres-change-feed.js';
import { createLoggers } from '../src/http/logging.js';
import { type Mailer, mailerFor } from '../src/mail/mailer.js';
import type { HttpLimits } from '../src/http/server.js';
import type { App } from '../src/http/types.js';
import type { Clock } from '../src/lib/clock.js';
import { PasswordHasher } from '../src/passwords/passwords.js';
import { Cache } from '../src/cache/cache.js';
import { UserService } from '../src/users/service.js';
import type { WorkspaceRole } from '../src/memberships/contract.js';
import { WorkspaceService } from '../src/workspaces/service.js';
import { totp } from './rfc6238.js';
import { copyMigratedSqlite, createMigratedPostgresDatabase } from './template-database.js';
import { linkIn, startSmtpServer, type TestSmtpServer, verificationLinkIn, verificationMailTo } from './smtp.js';
import { until } from './wait.js';

/** A clock the test moves by hand: expiry is proven by advancing it, never by sleeping. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start = Date.parse('2026-01-15T10:00:00.000Z')) {
    this.#now = start;
  }

  now(): Date {
    return new Date(this.#now);
  }

  advance(milliseconds: number): void {
    this.#now += milliseconds;
  }
}

export interface TestApp {
  app: App;
  config: Config;
  database: DatabaseHandle;
  clock: ManualClock;
  /** The app's cache: a service a test makes on the same database must report its writes to it. */
  cache: Cache;
  dataDir: string;
  /** The app's mailer: `await t.mailer.idle()` waits until every message handed over is sent. */
  mailer: Mailer;
  /** Everything the app logged so far, one JSON line per entry. */
  logs(): string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Reuse a data directory (to prove a restart keeps secrets); it is then not deleted on close. */
  dataDir?: string;
  /** Reuse a database created by an earlier TestApp (restart on PostgreSQL). */
  databaseUrl?: string;
  /** Waits between e-mail delivery retries; short by default so failure tests finish quickly. */
  mailRetryDelaysMs?: number[];
  /** Runs on the built app before it is made ready: the last moment to add a hook. */
  beforeReady?: (app: App) => void;
  /** Connection timeouts shorter than the service's, to see them expire. */
  httpLimits?: Partial<HttpLimits>;
  /** Outage logging intervals shorter than the service's. */
  databaseOutage?: AppOptions['databaseOutage'];
  /** The webhook sender's pacing; by default it looks for due deliveries every 20 ms. */
  webhooks?: AppOptions['webhooks'];
  /** The scheduled changes' pacing and lease; see AppOptions. */
  scheduledChanges?: AppOptions['scheduledChanges'];
  /** Single sign-on discovery's pacing and timeouts. */
  oidc?: AppOptions['oidc'];
  /** Told the SQL of every query the app runs. */
  onQuery?: (sql: string) => void;
  /** The public event streams' pacing and bounds; see AppOptions. */
  delivery?: AppOptions['delivery'];
  siteEvents?: AppOptions['siteEvents'];
  /** How often where public configurations were fetched from is written; see AppOptions. */
  publicOrigins?: AppOptions['publicOrigins'];
  /** How often usage of the public path is written and open streams reported; see AppOptions. */
  usage?: AppOptions['usage'];
}

/**
 * A test's mailer gives up within milliseconds: with the production delays (2, 10 and 60 s), a
 * message still pending when the test stopped its SMTP server kept the test file's process alive
 * for over a minute of retries, holding one of the runner's places while doing nothing.
 */
export const TEST_MAIL_RETRY_DELAYS_MS = [20, 20];

/** Cheap argon2id parameters: the tests exercise the flow, not the hash's cost. */
export const TEST_PASSWORD_HASHING = { memoryCost: 1024, timeCost: 1 };

// An empty database for tests that migrate it themselves (TEST_DATABASE_URL is the server's admin
// URL); buildTestApp's databases come migrated.
export { createPostgresDatabase } from './template-database.js';

export function usingPostgres(): boolean {
  return (process.env.TEST_DATABASE_URL ?? '') !== '';
}

/**
 * Waits (at most 10 s) until the cache's change feed listens. PostgreSQL's connects in the
 * background, and on a loaded machine a missed heartbeat turns it off until it reconnects.
 */
export async function untilCacheListens(cache: Cache): Promise<void> {
  await until(() => cache.available, "the cache's change feed to listen");
}

/**
 * Waits (at most 10 s) until the cache has heard every change committed so far. On PostgreSQL the
 * notices of this process's own writes arrive some time after they commit and drop what they
 * touched a second time, so a test that counts reads waits for them: PostgreSQL delivers
 * notifications in commit order, so once a marker sent now is heard, every earlier one was. On
 * SQLite this process's own writes are the only notice there is.
 */
export async function untilCacheHeardChanges(app: Pick<TestApp, 'cache' | 'database'>): Promise<void> {
  if (app.database.dialect !== 'postgres') return;
  const marker = `heard:${randomUUID()}`;
  let heard = false;
  const stop = app.cache.observe({
    invalidated: (tags) => {
      if (tags.includes(marker)) heard = true;
    },
    cleared: () => undefined,
  });
  try {
    await sql`select pg_notify(${CHANGE_CHANNEL}, ${marker})`.execute(app.database.db);
    await until(() => heard, 'the change feed to hear a marker sent after every earlier change');
  } finally {
    stop();
  }
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'siteward-test-'));
  let dropDatabase: (() => Promise<void>) | undefined;
  let databaseUrl = options.databaseUrl;
  const adminUrl = process.env.TEST_DATABASE_URL;
  // A database made here starts migrated; one given (or a data folder's existing file) is migrated.
  let migrated = false;
  if (databaseUrl === undefined && adminUrl !== undefined && adminUrl !== '') {
    const created = await createMigratedPostgresDatabase(adminUrl);
    databaseUrl = created.url;
    dropDatabase = created.drop;
    migrated = true;
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PUBLIC_URL: 'http://localhost:3000',
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    ...options.env,
  });
  if (config.database.kind === 'sqlite' && !existsSync(config.database.file)) {
    await copyMigratedSqlite(config.database.file);
    migrated = true;
  }
  const database = openDatabase(config.database, { ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery }), timeQueries: config.metricsPort !== null });
  if (!migrated) await migrate(database);
  const clock = options.clock ?? new ManualClock();
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  const loggers = createLoggers(config.logLevel, logStream);
  const mailer = mailerFor(config, loggers.app, { retryDelaysMs: options.mailRetryDelaysMs ?? TEST_MAIL_RETRY_DELAYS_MS });
  const cache = new Cache({ feed: config.cacheBytes > 0 ? database.openChangeFeed(loggers.app) : NO_CHANGE_FEED, maxBytes: config.cacheBytes });
  const app = await buildApp({
    config,
    database,
    clock,
    cache,
    logStream,
    passwordHashing: TEST_PASSWORD_HASHING,
    mailer,
    ...(options.httpLimits === undefined ? {} : { httpLimits: options.httpLimits }),
    ...(options.databaseOutage === undefined ? {} : { databaseOutage: options.databaseOutage }),
    webhooks: { pollIntervalMs: 20, ...options.webhooks },
    ...(options.scheduledChanges === undefined ? {} : { scheduledChanges: options.scheduledChanges }),
    ...(options.oidc === undefined ? {} : { oidc: options.oidc }),
    ...(options.delivery === undefined ? {} : { delivery: options.delivery }),
    ...(options.siteEvents === undefined ? {} : { siteEvents: options.siteEvents }),
    ...(options.publicOrigins === undefined ? {} : { publicOrigins: options.publicOrigins }),
    ...(options.usage === undefined ? {} : { usage: options.usage }),
  });
  options.beforeReady?.(app);
  await app.ready();
  // PostgreSQL's change feed connects in the background; tests about caching start once it listens.
  if (config.cacheBytes > 0) await untilCacheListens(cache);
  return {
    app,
    config,
    database,
    clock,
    cache,
    mailer,
    dataDir,
    logs: () => lines.join(''),
    close: async () => {
      await app.close();
      await database.close();
      if (dropDatabase !== undefined) await dropDatabase();
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const STRONG_PASSWORD = 'violet-harbour-cinnamon-42';

let userCounter = 0;

export interface SignedUpUser {
  id: string;
  email: string;
  jwt: string;
  /** Authorization header value for the JWT. */
  bearer: string;
}

/** Signs a new user up through the API and returns their JWT. */
export async function signUp(app: App, email = `user${++userCounter}-${randomBytes(3).toString('hex')}@example.com`): Promise<SignedUpUser> {
  const response = await app.inject({ method: 'POST', url: '/auth/signup', payload: { email, password: STRONG_PASSWORD } });
  if (response.statusCode !== 201) throw new Error(`sign-up failed: ${response.statusCode} ${response.body}`);
  const body = response.json<{ token: string; user: { id: string; email: string } }>();
  return { id: body.user.id, email: body.user.email, jwt: body.token, bearer: `Bearer ${body.token}` };
}

/** A workspace the owner creates through the API (they own it); its id. */
export async function createWorkspace(app: App, owner: SignedUpUser, name = 'Support team'): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name } });
  if (response.statusCode !== 201) throw new Error(`workspace creation failed: ${response.statusCode} ${response.body}`);
  return response.json<{ workspace: { id: string } }>().workspace.id;
}

/**
 * Makes someone a member with the given role at once, as an accepted invitation does, without the
 * e-mail round; true once added (false when they already were one).
 */
export function addMember(t: TestApp, workspaceId: string, user: { id: string }, role: WorkspaceRole): Promise<boolean> {
  return new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspaceId, user.id, role);
}

/** A test app and one signed-up user in it, where most route tests start: `t.close()` ends both. */
export async function buildTestAppWithOwner(options: TestAppOptions = {}): Promise<{ t: TestApp; owner: SignedUpUser }> {
  const t = await buildTestApp(options);
  return { t, owner: await signUp(t.app) };
}

/** A test app whose mail goes to a test SMTP server of its own: `t.close()` stops both. */
export async function buildTestAppWithMail(options: TestAppOptions = {}): Promise<{ t: TestApp; smtp: TestSmtpServer }> {
  const smtp = await startSmtpServer();
  try {
    const t = await buildTestApp({ ...options, env: { SMTP_URL: smtp.url, ...options.env } });
    const close = async () => {
      await t.close();
      await smtp.close();
    };
    return { t: { ...t, close }, smtp };
  } catch (error) {
    await smtp.close();
    throw error;
  }
}

/** Confirms an address as its owner would: the token of the mailed link, posted to /verify-email. */
export async function confirmEmail(app: App, link: string): Promise<void> {
  const url = new URL(link);
  // The link's origin is PUBLIC_URL's, as the page's form would send it.
  const response = await app.inject({ method: 'POST', url: '/verify-email', headers: { origin: url.origin }, payload: { token: url.searchParams.get('token') ?? '' } });
  if (response.statusCode !== 200) throw new Error(`confirming the address failed: ${response.statusCode} ${response.body}`);
}

/**
 * Signs up and confirms the address through the mailed link: an account whose holder has proved
 * the mailbox, as every account was before addresses were verified. Waiting for the confirmation
 * mail also keeps it from being counted as a later message.
 */
export async function signUpConfirmed(app: App, smtp: TestSmtpServer, email?: string): Promise<SignedUpUser> {
  const user = await signUp(app, email);
  await confirmEmail(app, verificationLinkIn(await verificationMailTo(smtp, user.email)));
  return user;
}

/** Creates a user as `npm run cli -- users:create` does: the address counts as verified and nothing is mailed. */
export async function createUserAsOperator(t: TestApp, email: string): Promise<{ id: string; email: string }> {
  const users = new UserService(t.database.db, new PasswordHasher(TEST_PASSWORD_HASHING), t.clock);
  const user = await users.createUser({ email, password: STRONG_PASSWORD }, { emailVerified: true });
  return { id: user.id, email: user.email };
}

/** Creates a personal access token for the user and returns the Authorization header value. */
export async function createAccessToken(app: App, user: SignedUpUser, scopes?: string[]): Promise<{ id: string; token: string; header: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/access-tokens',
    headers: { authorization: user.bearer },
    payload: { name: 'test token', ...(scopes === undefined ? {} : { scopes }) },
  });
  if (response.statusCode !== 201) throw new Error(`token creation failed: ${response.statusCode} ${response.body}`);
  const { access_token } = response.json<{ access_token: { id: string; token: string } }>();
  return { id: access_token.id, token: access_token.token, header: `Token ${access_token.token}` };
}

export interface SiteBody {
  id: string;
  name: string;
  color: string;
  partner_settings: Record<string, unknown>;
  [field: string]: unknown;
}

export async function createSite(app: App, authorization: string, body: Record<string, unknown> = { name: 'Help centre' }): Promise<SiteBody> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/sites', headers: { authorization }, payload: body });
  if (response.statusCode !== 201) throw new Error(`site creation failed: ${response.statusCode} ${response.body}`);
  return response.json<{ site: SiteBody }>().site;
}

export interface EnabledTotp {
  secret: string;
  recoveryCodes: string[];
}

/**
 * Turns TOTP on for the user through the API, with a code from the tests' own RFC 6238
 * implementation at the app's clock, then moves the clock one step on, so the next code is fresh
 * (the enabling code's step is used up).
 */
export async function enableTotp(t: TestApp, user: SignedUpUser): Promise<EnabledTotp> {
  const setup = await t.app.inject({ method: 'POST', url: '/api/v1/me/totp/setup', headers: { authorization: user.bearer } });
  if (setup.statusCode !== 200) throw new Error(`totp setup failed: ${setup.statusCode} ${setup.body}`);
  const { secret } = setup.json<{ secret: string }>();
  const enable = await t.app.inject({
    method: 'POST',
    url: '/api/v1/me/totp/enable',
    headers: { authorization: user.bearer },
    payload: { code: totp(secret, t.clock.now()) },
  });
  if (enable.statusCode !== 200) throw new Error(`totp enable failed: ${enable.statusCode} ${enable.body}`);
  t.clock.advance(30_000);
  return { secret, recoveryCodes: enable.json<{ recovery_codes: string[] }>().recovery_codes };
}

export interface SessionCookie {
  name: string;
  value: string;
  /** "name=value", ready for a Cookie request header. */
  header: string;
  attributes: string[];
}

/** The session cookie a response sets, if any, with its attributes. */
export function sessionCookie(setCookie: string | string[] | undefined): SessionCookie | undefined {
  const line = [setCookie ?? []].flat().find((entry) => /^(__Host-)?siteward_session=/.test(entry));
  if (line === undefined) return undefined;
  const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
  const separator = pair.indexOf('=');
  return { name: pair.slice(0, separator), value: pair.slice(separator + 1), header: pair, attributes };
}

/**
 * Asks for a sign-in link for the address and reads it out of the mail the SMTP server received.
 * Other mail (a security notice) may arrive in between: the link is the one sent to it after asking.
 */
export async function mailedMagicLink(app: App, smtp: TestSmtpServer, email: string): Promise<URL> {
  const before = smtp.messages.length;
  const response = await app.inject({ method: 'POST', url: '/auth/magic-link', payload: { email } });
  if (response.statusCode !== 202) throw new Error(`sign-in link request failed: ${response.statusCode} ${response.body}`);
  const mail = await smtp.waitForMessage(before, (message) => message.to.includes(email.trim().toLowerCase()) && message.subject === 'Your Siteward sign-in link');
  return new URL(linkIn(mail));
}
