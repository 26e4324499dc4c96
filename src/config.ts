import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; poolSize: number };

export interface Config {
  port: number;
  host: string;
  /** The service's {base_url}: origin (and optional path) without a trailing slash. */
  publicUrl: string;
  /** PUBLIC_URL's origin: the JWT issuer, the WebAuthn origin and the CSRF reference. */
  publicOrigin: string;
  dataDir: string;
  database: DatabaseConfig;
  jwtSecret: string;
  encryptionKey: Buffer;
  smtpUrl: string | undefined;
  mailFrom: string;
  signup: 'open' | 'closed';
  logLevel: string;
  /** Whether requests to other servers (partner checks) may reach loopback and private addresses. */
  outboundAllowPrivateNetworks: boolean;
  /** Total time a partner connection check may take, every request and redirect included. */
  partnerCheckTimeoutMs: number;
  /** Seconds between automatic re-checks of enabled partner integrations; 0 turns them off. */
  partnerCheckIntervalSeconds: number;
  /** A web session ends after this long without a request… */
  sessionIdleMs: number;
  /** …and after this long in any case. */
  sessionLifetimeMs: number;
  /** Memory for what the cache keeps (src/cache/cache.ts: principals, site answers), in bytes; 0 turns it off. */
  cacheBytes: number;
  /**
   * How long a sign-in or re-authentication counts as recent: changes that could lock the owner
   * out (new access tokens, passkeys, TOTP, a password without the old one) need one this fresh.
   */
  reauthWindowSeconds: number;
  /** How many days audit log events are kept; older ones are deleted by the hourly clean-up. */
  auditRetentionDays: number;
  /** Days a deleted site stays in the trash, restorable, before it is purged with its history. */
  trashRetentionDays: number;
  /** Days the daily counts of what reached the public path are kept (hourly ones: 14). */
  usageRetentionDays: number;
  /** Passed to Fastify's trustProxy: false, true, or a comma-separated list of proxy addresses/CIDRs. */
  trustProxy: boolean | string;
  /** OpenID Connect providers people may sign in with (OIDC_* or OIDC_PROVIDERS_FILE); empty when none. */
  oidcProviders: OidcProviderConfig[];
  /** How long browsers and HTTP caches may keep a site's public configuration: a change reaches visitors within it. */
  publicMaxAgeSeconds: number;
  /** Event streams of public configurations one process holds open at most; past it, 503 with Retry-After. */
  publicStreamsMax: number;
  /** Of those, what one client address (as read behind TRUST_PROXY) may hold open; past it, 503 with Retry-After. */
  publicStreamsPerAddress: number;
  /** The port of the Prometheus listener (/metrics, on HOST); null: no metrics. */
  metricsPort: number | null;
}

/** One OpenID Connect provider, as the operator configured it. */
export interface OidcProviderConfig {
  /** In the callback's path (/auth/oidc/{id}/callback) and in each linked identity. */
  id: string;
  /** What the sign-in button says. */
  name: string;
  /** The issuer identifier, exactly as configured; discovery reads {issuer}/.well-known/openid-configuration. */
  issuer: string;
  clientId: string;
  /** Never logged, never shown: only sent to the provider's token endpoint. */
  clientSecret: string;
}

/** A configuration mistake; its message is the one line start-up prints before exiting. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Environment = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Reads the environment once. Every rule names the variable it checks, so a bad value stops
 * start-up with a line a person can act on. Secrets left unset are generated once into DATA_DIR
 * (mode 0600), so a restart keeps every JWT and every encrypted value valid.
 */
export function loadConfig(env: Environment = process.env): Config {
  const port = parsePort(env.PORT);
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const publicUrl = parsePublicUrl(env.PUBLIC_URL, port);
  const dataDir = path.resolve(nonEmpty(env.DATA_DIR) ?? './data');
  const database = parseDatabase(env.DATABASE_URL, env.DATABASE_POOL_SIZE, dataDir);

  const signup = nonEmpty(env.SIGNUP) ?? 'open';
  if (signup !== 'open' && signup !== 'closed') {
    throw new ConfigError(`SIGNUP must be "open" or "closed", not "${signup}"`);
  }
  const logLevel = nonEmpty(env.LOG_LEVEL) ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  }
  const smtpUrl = nonEmpty(env.SMTP_URL);
  if (smtpUrl !== undefined && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  }

  ensureDirectory(dataDir);
  const jwtSecret = nonEmpty(env.JWT_SECRET) ?? readOrCreateSecret(dataDir, 'jwt-secret', () => randomBytes(48).toString('base64url'));
  if (jwtSecret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters long');
  const encryptionKeyText = nonEmpty(env.ENCRYPTION_KEY) ?? readOrCreateSecret(dataDir, 'encryption-key', () => randomBytes(32).toString('base64'));
  const encryptionKey = Buffer.from(encryptionKeyText, 'base64');
  if (encryptionKey.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encryptionKeyText)) {
    throw new ConfigError('ENCRYPTION_KEY must be 32 bytes in base64 (for example: openssl rand -base64 32)');
  }

  return {
    port,
    host,
    publicUrl,
    publicOrigin: new URL(publicUrl).origin,
    dataDir,
    database,
    jwtSecret,
    encryptionKey,
    smtpUrl,
    mailFrom: nonEmpty(env.MAIL_FROM) ?? `Siteward <no-reply@${new URL(publicUrl).hostname}>`,
    signup,
    logLevel,
    outboundAllowPrivateNetworks: parseOutboundPrivateNetworks(env),
    partnerCheckTimeoutMs: parseWholeNumber('PARTNER_CHECK_TIMEOUT_MS', env.PARTNER_CHECK_TIMEOUT_MS, 10_000, 100, 60_000),
    partnerCheckIntervalSeconds: parsePartnerCheckInterval(env.PARTNER_CHECK_INTERVAL),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    cacheBytes: parseCacheMegabytes(env) * 1024 * 1024,
    sessionIdleMs: parseWholeNumber('SESSION_IDLE_HOURS', env.SESSION_IDLE_HOURS, 72, 1, 24 * 365) * 60 * 60 * 1000,
    sessionLifetimeMs: parseWholeNumber('SESSION_LIFETIME_DAYS', env.SESSION_LIFETIME_DAYS, 30, 1, 365) * 24 * 60 * 60 * 1000,
    // At least a minute, so a person can finish what they confirmed; at most a day, or it stops meaning "recent".
    reauthWindowSeconds: parseWholeNumber('REAUTH_WINDOW_SECONDS', env.REAUTH_WINDOW_SECONDS, 600, 60, 24 * 60 * 60),
    auditRetentionDays: parseWholeNumber('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, 365, 1, 36500),
    trashRetentionDays: parseWholeNumber('TRASH_RETENTION_DAYS', env.TRASH_RETENTION_DAYS, 30, 1, 36500),
    usageRetentionDays: parseWholeNumber('USAGE_RETENTION_DAYS', env.USAGE_RETENTION_DAYS, 400, 14, 36500),
    oidcProviders: parseOidcProviders(env),
    // Up to a day: past that a change would take too long to reach visitors to call it live.
    publicMaxAgeSeconds: parseWholeNumber('PUBLIC_MAX_AGE_SECONDS', env.PUBLIC_MAX_AGE_SECONDS, 60, 0, 86_400),
    publicStreamsMax: parseWholeNumber('PUBLIC_STREAMS_MAX', env.PUBLIC_STREAMS_MAX, 10_000, 0, 1_000_000),
    // A page open in a few tabs, or a few visitors behind one NAT, fit well within 20; one client
    // cannot fill the process. Past it embed.js polls, so a crowded NAT still gets its configuration.
    publicStreamsPerAddress: parseWholeNumber('PUBLIC_STREAMS_PER_ADDRESS', env.PUBLIC_STREAMS_PER_ADDRESS, 20, 1, 1_000_000),
    metricsPort: nonEmpty(env.METRICS_PORT) === undefined ? null : parseWholeNumber('METRICS_PORT', env.METRICS_PORT, 0, 1, 65_535),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function parsePort(value: string | undefined): number {
  const text = nonEmpty(value);
  if (text === undefined) return 3000;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new ConfigError(`PORT must be a whole number from 0 to 65535, not "${text}"`);
  return port;
}

function parsePublicUrl(value: string | undefined, port: number): string {
  const text = nonEmpty(value) ?? `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`PUBLIC_URL must use http or https, not "${url.protocol}"`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError('PUBLIC_URL must not carry credentials, a query or a fragment');
  }
  return url.href.replace(/\/+$/, '');
}

function parseDatabase(value: string | undefined, poolSize: string | undefined, dataDir: string): DatabaseConfig {
  const url = nonEmpty(value);
  if (url === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'siteward.db') };
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for SQLite in DATA_DIR)');
  }
  const size = nonEmpty(poolSize) ?? '10';
  if (!/^\d+$/.test(size) || Number(size) < 1 || Number(size) > 500) {
    throw new ConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to 500, not "${size}"`);
  }
  return { kind: 'postgres', url, poolSize: Number(size) };
}

/** CACHE_MB, or SITE_CACHE_MB, its older name from when the cache held site answers only. */
function parseCacheMegabytes(env: Environment): number {
  const name = nonEmpty(env.CACHE_MB) === undefined && nonEmpty(env.SITE_CACHE_MB) !== undefined ? 'SITE_CACHE_MB' : 'CACHE_MB';
  return parseWholeNumber(name, env[name], 32, 0, 64 * 1024);
}

function parseWholeNumber(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  const text = nonEmpty(value);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return Number(text);
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  const text = nonEmpty(value)?.toLowerCase();
  if (text === undefined) return fallback;
  if (['true', '1', 'yes'].includes(text)) return true;
  if (['false', '0', 'no'].includes(text)) return false;
  throw new ConfigError(`${name} must be true or false, not "${value}"`);
}

/**
 * Whether requests to other servers may reach loopback and private addresses. The variable was
 * PARTNER_ALLOW_PRIVATE_NETWORKS when partner checks were the only such requests; that name still
 * works, and both set to different values is an error rather than a guess.
 */
function parseOutboundPrivateNetworks(env: Environment): boolean {
  const current = nonEmpty(env.OUTBOUND_ALLOW_PRIVATE_NETWORKS) === undefined ? undefined : parseBoolean('OUTBOUND_ALLOW_PRIVATE_NETWORKS', env.OUTBOUND_ALLOW_PRIVATE_NETWORKS, false);
  const former = nonEmpty(env.PARTNER_ALLOW_PRIVATE_NETWORKS) === undefined ? undefined : parseBoolean('PARTNER_ALLOW_PRIVATE_NETWORKS', env.PARTNER_ALLOW_PRIVATE_NETWORKS, false);
  if (current !== undefined && former !== undefined && current !== former) {
    throw new ConfigError('OUTBOUND_ALLOW_PRIVATE_NETWORKS and its former name PARTNER_ALLOW_PRIVATE_NETWORKS disagree; set only OUTBOUND_ALLOW_PRIVATE_NETWORKS');
  }
  return current ?? former ?? false;
}

/** 0 (off, the default) or at least a minute: a partner should not be polled harder than that. */
function parsePartnerCheckInterval(value: string | undefined): number {
  const seconds = parseWholeNumber('PARTNER_CHECK_INTERVAL', value, 0, 0, 7 * 24 * 60 * 60);
  if (seconds !== 0 && seconds < 60) {
    throw new ConfigError(`PARTNER_CHECK_INTERVAL must be 0 (off) or at least 60 seconds, not "${seconds}"`);
  }
  return seconds;
}

function parseTrustProxy(value: string | undefined): boolean | string {
  const text = nonEmpty(value);
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  return text;
}

const OIDC_PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
const OIDC_NAME_MAX_LENGTH = 60;
const OIDC_SINGLE_VARIABLES = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;

/**
 * The OpenID Connect providers: one from OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and
 * OIDC_NAME (id "oidc"), or several from the JSON array in OIDC_PROVIDERS_FILE. Messages name the
 * variable (and the file's entry) but never a client secret.
 */
function parseOidcProviders(env: Environment): OidcProviderConfig[] {
  const file = nonEmpty(env.OIDC_PROVIDERS_FILE);
  const single = OIDC_SINGLE_VARIABLES.filter((name) => nonEmpty(env[name]) !== undefined);
  if (file !== undefined && (single.length > 0 || nonEmpty(env.OIDC_NAME) !== undefined)) {
    throw new ConfigError('OIDC_PROVIDERS_FILE and OIDC_ISSUER/OIDC_CLIENT_ID/OIDC_CLIENT_SECRET/OIDC_NAME are both set; use one or the other (put every provider in the file)');
  }
  if (file !== undefined) return readOidcProvidersFile(file);
  if (single.length === 0) {
    if (nonEmpty(env.OIDC_NAME) !== undefined) throw new ConfigError('OIDC_NAME is set without OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
    return [];
  }
  const missing = OIDC_SINGLE_VARIABLES.find((name) => nonEmpty(env[name]) === undefined);
  if (missing !== undefined) throw new ConfigError(`${missing} must be set too: OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together`);
  const name = nonEmpty(env.OIDC_NAME) ?? 'Single sign-on';
  if ([...name].length > OIDC_NAME_MAX_LENGTH) throw new ConfigError(`OIDC_NAME must be at most ${OIDC_NAME_MAX_LENGTH} characters`);
  return [
    {
      id: 'oidc',
      name,
      issuer: parseIssuer('OIDC_ISSUER', nonEmpty(env.OIDC_ISSUER) ?? ''),
      clientId: nonEmpty(env.OIDC_CLIENT_ID) ?? '',
      clientSecret: nonEmpty(env.OIDC_CLIENT_SECRET) ?? '',
    },
  ];
}

function readOidcProvidersFile(file: string): OidcProviderConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'it is not valid JSON' : `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new ConfigError(`OIDC_PROVIDERS_FILE "${file}": ${reason}`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`OIDC_PROVIDERS_FILE "${file}" must hold a JSON array of {id, name, issuer, client_id, client_secret}`);
  const providers = parsed.map((entry: unknown, index) => parseOidcProviderEntry(entry, `OIDC_PROVIDERS_FILE entry ${index + 1}`));
  const ids = new Set<string>();
  for (const provider of providers) {
    if (ids.has(provider.id)) throw new ConfigError(`OIDC_PROVIDERS_FILE names the provider id "${provider.id}" twice`);
    ids.add(provider.id);
  }
  return providers;
}

const OIDC_ENTRY_FIELDS = ['id', 'name', 'issuer', 'client_id', 'client_secret'];

function parseOidcProviderEntry(entry: unknown, where: string): OidcProviderConfig {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ConfigError(`${where} must be an object {id, name, issuer, client_id, client_secret}`);
  const fields = entry as Record<string, unknown>;
  const unknownField = Object.keys(fields).find((key) => !OIDC_ENTRY_FIELDS.includes(key));
  if (unknownField !== undefined) throw new ConfigError(`${where} has an unknown field "${unknownField}" (expected id, name, issuer, client_id, client_secret)`);
  const text = (field: string): string => {
    const value = fields[field];
    if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${where}: ${field} must be a non-empty string`);
    return value.trim();
  };
  const id = text('id');
  if (!OIDC_PROVIDER_ID.test(id)) throw new ConfigError(`${where}: id must be 1-32 lower-case letters, digits or inner hyphens, not "${id}"`);
  const name = text('name');
  if ([...name].length > OIDC_NAME_MAX_LENGTH) throw new ConfigError(`${where}: name must be at most ${OIDC_NAME_MAX_LENGTH} characters`);
  return { id, name, issuer: parseIssuer(`${where}: issuer`, text('issuer')), clientId: text('client_id'), clientSecret: text('client_secret') };
}

/**
 * An issuer identifier: https, or http on a loopback address only (a provider on this machine, as
 * in tests), since plain http elsewhere would let anyone on the path read codes and forge answers.
 */
function parseIssuer(name: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name} must be an absolute https URL, not "${text}"`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(`${name} must use https (http only on a loopback address such as 127.0.0.1), not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an https URL, not "${text}"`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(`${name} must not carry credentials, a query or a fragment`);
  }
  // A discovery document's own URL would skip the check that its issuer is the one configured.
  if (url.pathname.includes('/.well-known/')) throw new ConfigError(`${name} must be the issuer (as in the ID token's "iss"), not the URL of its discovery document`);
  return text;
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function ensureDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`DATA_DIR "${dir}" cannot be created: ${(error as Error).message}`);
  }
}

/**
 * Creates the file exclusively ('wx'), so two servers starting together on one DATA_DIR agree on
 * one secret: the loser of the race reads the winner's.
 */
function readOrCreateSecret(dataDir: string, name: string, generate: () => string): string {
  const file = path.join(dataDir, name);
  try {
    writeFileSync(file, `${generate()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError(`DATA_DIR: cannot write ${file}: ${(error as Error).message}`);
    }
  }
  chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}
