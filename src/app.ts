import type { IncomingMessage, ServerResponse } from 'node:http';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { sql } from 'kysely';
import type { DestinationStream } from 'pino';
import { registerAdminRoutes } from './admin/routes.js';
import { closeServer, createMetricsServer, listenOn, PUBLIC_CONFIG_ROUTE } from './metrics/server.js';
import { Metrics } from './metrics/metrics.js';
import { AdminService } from './admin/service.js';
import { registerAuditRoutes } from './audit/routes.js';
import { AuditLog } from './audit/service.js';
import { LastUseRecorder } from './auth/access-token-last-use.js';
import { registerAccessTokenRoutes } from './access-tokens/routes.js';
import { AccessTokenService } from './access-tokens/service.js';
import { Guard } from './auth/guard.js';
import { JwtService } from './auth/jwt.js';
import { DEFAULT_PASSWORD_HASHING, PasswordHasher, type PasswordHashingOptions } from './passwords/passwords.js';
import { RateLimiter } from './rate-limit/rate-limit.js';
import { RecentAuthentication } from './auth/recent-authentication.js';
import { registerAuthRoutes } from './sign-in/routes.js';
import { MagicLinkService } from './auth/magic-link.js';
import { SessionService } from './auth/sessions.js';
import { registerWebSignInRoutes } from './sign-in/web-routes.js';
import { AccountDeletionService } from './account/deletion.js';
import { ReauthenticationService } from './account/reauthentication.js';
import { registerAccountRoutes } from './account/routes.js';
import { AccountClaimService } from './email-verification/claim.js';
import { registerEmailVerificationRoutes } from './email-verification/routes.js';
import { EmailVerificationService } from './email-verification/service.js';
import { type Mailer, mailerFor } from './mail/mailer.js';
import { AuthService } from './sign-in/service.js';
import { Cache } from './cache/cache.js';
import { NO_CHANGE_FEED } from './cache/change-feed.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/connect.js';
import { DatabaseOutage, type DatabaseOutageOptions, isDatabaseUnavailable } from './db/outage.js';
import { AppError } from './errors.js';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, handleNotFound } from './http/error-handler.js';
import { registerCompression } from './http/compression.js';
import { registerProtocolRules } from './http/protocol-rules.js';
import { registerJsonParser } from './http/json-body.js';
import { LOG_FLUSH_INTERVAL_MS } from './http/log-destination.js';
import { createLoggers, lazyChildLoggerFactory } from './http/logging.js';
import { RequestLogController } from './http/request-log.js';
import { SecurityHistory } from './security/history.js';
import { registerSecurityEventRoutes } from './security/routes.js';
import { SecurityEvents } from './security/events.js';
import { refusalLogger } from './security/refusals.js';
import { registerSecurityHeaders, responseHeaders } from './http/security-headers.js';
import { clientAddress } from './http/client-address.js';
import { createHttpServer, DEFAULT_HTTP_LIMITS, fastifyTimeoutOptions, type HttpLimits } from './http/server.js';
import type { App } from './http/types.js';
import { serializerCompiler, validatorCompiler } from './http/validation.js';
import { type Clock, systemClock } from './lib/clock.js';
import { SecretBox } from './lib/crypto.js';
import { everyInterval, runBackgroundJobs } from './background/jobs.js';
import { pruneStaleRows } from './maintenance/prune.js';
import { PartnerAlerts } from './partner/alerts.js';
import { PartnerChecker } from './partner/check.js';
import { registerPartnerRoutes } from './partner/routes.js';
import { PartnerRecheckScheduler } from './partner/scheduler.js';
import { PartnerCheckService } from './partner/service.js';
import { EmailChangeService } from './profile/email-change.js';
import { registerProfileRoutes } from './profile/routes.js';
import { ProfileService } from './profile/service.js';
import { registerPasskeyRoutes } from './passkeys/routes.js';
import { PasskeyService } from './passkeys/service.js';
import { registerSiteRoutes } from './sites/routes.js';
import { registerSiteEventRoutes } from './delivery/site-event-routes.js';
import { DEFAULT_SITE_EVENT_STREAM_MAX_AGE_MS, SiteEventStreams, type SiteEventStreamOptions } from './delivery/site-event-streams.js';
import { registerChangeRequestRoutes } from './change-requests/routes.js';
import { ChangeRequestService } from './change-requests/service.js';
import { ScheduledChanges, type ScheduledChangesOptions } from './change-requests/scheduler.js';
import { PublicAnswers } from './delivery/answers.js';
import { publicFastPath } from './delivery/fast-path.js';
import { ServedConfigurations } from './delivery/served-log.js';
import { PublicKeyRotation } from './delivery/key-rotation.js';
import { PUBLIC_CHECK_INTERVAL_MS, PublicConfigs } from './delivery/public-configs.js';
import { registerPublicRoutes } from './delivery/routes.js';
import { registerEmbedScript } from './delivery/embed-script.js';
import { DEFAULT_STREAM_OPTIONS, PublicStreams, type PublicStreamOptions } from './delivery/streams.js';
import { registerSiteDeliveryRoutes } from './delivery/site-routes.js';
import { SiteInstall } from './delivery/install.js';
import { DEFAULT_ORIGIN_OPTIONS, PublicOrigins, type PublicOriginOptions } from './delivery/origins.js';
import { DEFAULT_USAGE_OPTIONS, UsageCounter, type UsageOptions } from './usage/counter.js';
import { registerUsageRoutes } from './usage/routes.js';
import { UsageService } from './usage/service.js';
import { registerSettingsSchemaRoutes } from './sites/settings-schema-routes.js';
import { registerTotpRoutes } from './totp/routes.js';
import { upgradeLegacyRecoveryCodes } from './totp/queries.js';
import { KEYED_DIGEST_PREFIX, RecoveryCodeDigest } from './totp/recovery-codes.js';
import { TotpService } from './totp/service.js';
import { SiteReads } from './sites/reads.js';
import { SiteHistory } from './sites/history.js';
import { SiteService } from './sites/service.js';
import { UserService } from './users/service.js';
import { PasswordChangeService } from './account/password-change.js';
import { registerDashboard } from './web/static.js';
import { registerInvitationRoutes } from './workspaces/invitation-routes.js';
import { InvitationService } from './workspaces/invitations.js';
import { registerWorkspaceRoutes } from './workspaces/routes.js';
import { WorkspaceService } from './workspaces/service.js';
import { TwoFactorRequirementNotices } from './workspaces/two-factor-notices.js';
import { HTTP_ERRORS } from './http/errors.js';
import { AuthorizationRequests } from './oidc/authorization-requests.js';
import { IdentityService } from './oidc/identities.js';
import { PendingIdentityLinks } from './oidc/pending-links.js';
import { type OidcDiscoveryOptions, OidcProviders } from './oidc/providers.js';
import { registerOidcRoutes } from './oidc/routes.js';
import { SingleSignOn } from './oidc/sign-in.js';
import { defaultAddressPolicy, systemResolver } from './outbound/network-guard.js';
import { registerWebhookRoutes } from './webhooks/routes.js';
import { WebhookSender, type WebhookSenderOptions } from './webhooks/sender.js';
import { WebhookService } from './webhooks/service.js';

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  clock?: Clock;
  /** Where log lines go (stdout by default); tests read them to prove no secret is logged. */
  logStream?: DestinationStream;
  passwordHashing?: PasswordHashingOptions;
  /**
   * Sends the app's e-mail in the background; made from the configuration when not given. Tests
   * hand in one with short retries, and wait on it until everything handed over is sent.
   */
  mailer?: Mailer;
  /**
   * What the app keeps from the database (src/cache/cache.ts). Every service writing through this
   * database handle must report to the same one; made from the configuration when not given.
   * Closed with the app.
   */
  cache?: Cache;
  /** Connection timeouts (http/server.ts); tests shorten them. */
  httpLimits?: Partial<HttpLimits>;
  /** How often an outage of the database is summarised in the log and probed (tests shorten them). */
  databaseOutage?: Pick<DatabaseOutageOptions, 'summaryIntervalMs' | 'probeIntervalMs'>;
  /** The webhook sender's pacing (tests shorten it). */
  webhooks?: Partial<WebhookSenderOptions>;
  /** How often scheduled change requests are looked for, and their lease (tests shorten them). */
  scheduledChanges?: Partial<ScheduledChangesOptions>;
  /** How single sign-on providers are discovered and retried (tests shorten the waits). */
  oidc?: Partial<OidcDiscoveryOptions>;
  /** The public event streams' pacing and bounds (tests shorten them). */
  delivery?: Partial<PublicStreamOptions>;
  /** The members' site event streams: their pacing is the public streams' (delivery), their age theirs (tests shorten them). */
  siteEvents?: Partial<SiteEventStreamOptions>;
  /** How often where public configurations were fetched from is written (tests shorten it). */
  publicOrigins?: Partial<PublicOriginOptions>;
  /** How often usage of the public path is written and open streams reported (tests shorten them). */
  usage?: Partial<UsageOptions>;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Builds the whole application from its parts; it neither listens nor touches process. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config, database } = options;
  const { db } = database;
  const clock = options.clock ?? systemClock;

  const loggers = createLoggers(config.logLevel, options.logStream);
  // Helmet's headers, computed once; HSTS and the https upgrade only when PUBLIC_URL is https.
  const headers = responseHeaders({ https: config.publicUrl.startsWith('https:') });
  const outage = new DatabaseOutage({ log: loggers.app, clock, probe: () => sql`select 1`.execute(db), ...options.databaseOutage });
  const mailer = options.mailer ?? mailerFor(config, loggers.app);
  const securityEvents = new SecurityEvents(db, loggers.app, mailer, clock);
  const handleError = errorHandler(outage, refusalLogger(securityEvents));
  // Set once the public path's parts exist, below; the server only calls it for requests.
  let publicFastPathHandler: ((request: IncomingMessage, response: ServerResponse) => boolean) | undefined;
  const app: App = Fastify({
    serverFactory: (handler, serverOptions) =>
      createHttpServer(serverOptions, (request, response) => {
        if (publicFastPathHandler?.(request, response) !== true) handler(request, response);
      }),
    loggerInstance: loggers.app,
    logController: new RequestLogController(loggers.requestLines),
    childLoggerFactory: lazyChildLoggerFactory,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    // Ids are ours; a client-sent request id is not trusted into the logs.
    genReqId: () => crypto.randomUUID(),
    ...fastifyTimeoutOptions({ ...DEFAULT_HTTP_LIMITS, ...options.httpLimits }),
    // Errors met before routing, or before there is a request at all, are problems like any other.
    frameworkErrors: frameworkErrorHandler(headers, handleError),
    clientErrorHandler: clientErrorHandler(headers),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are JSON only; Fastify's built-in text/plain parser would let a text body reach validation.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app, BODY_LIMIT_BYTES);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  app.decorateRequest('principal', null);

  await app.register(cookie);
  registerSecurityHeaders(app, headers);
  registerProtocolRules(app, headers);
  await registerCompression(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Siteward API',
        version: '1.0.0',
        description: 'Manage sites. Authenticate with a JWT from POST /auth/login (Authorization: Bearer) or a personal access token (Authorization: Token).',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'JWT from POST /auth/login; expires 7 days after issue' },
          AccessToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Authorization: Token <personal access token>; does not expire' },
        },
      },
    },
  });

  const hasher = new PasswordHasher(options.passwordHashing ?? DEFAULT_PASSWORD_HASHING);
  const limiter = new RateLimiter(db, clock);
  const users = new UserService(db, hasher, clock);
  const sessions = new SessionService(db, clock, {
    idleMs: config.sessionIdleMs,
    lifetimeMs: config.sessionLifetimeMs,
    secure: config.publicUrl.startsWith('https:'),
  });
  const cache = options.cache ?? new Cache({ feed: config.cacheBytes > 0 ? database.openChangeFeed(loggers.app) : NO_CHANGE_FEED, maxBytes: config.cacheBytes });
  app.addHook('onClose', () => cache.close());
  const jwt = new JwtService(config.jwtSecret, config.publicOrigin, clock, cache);
  // Background writes that fail because the database is away are part of the outage's lines.
  const backgroundFailure = (message: string) => (error: unknown) => {
    if (isDatabaseUnavailable(error)) outage.failed(error);
    else app.log.warn({ err: error }, message);
  };
  const lastUses = new LastUseRecorder(db, backgroundFailure('recording access tokens\' last use failed; kept for the next write'));
  // After the server has stopped taking requests, before whoever built the app closes the database.
  app.addHook('onClose', () => lastUses.close());
  const recentAuthentication = new RecentAuthentication(clock, config.reauthWindowSeconds * 1000);
  const guard = new Guard(db, jwt, sessions, clock, config.publicOrigin, cache, lastUses, recentAuthentication);
  const secrets = new SecretBox(config.encryptionKey);
  const magicLinks = new MagicLinkService(db, users, limiter, mailer, clock, config.publicUrl);
  const recoveryCodeDigest = new RecoveryCodeDigest(config.encryptionKey);
  // Digests written before they were keyed are converted now: the key never reaches a migration.
  await upgradeLegacyRecoveryCodes(db, (sha256Hex) => recoveryCodeDigest.fromLegacy(sha256Hex), KEYED_DIGEST_PREFIX);
  const totp = new TotpService(db, secrets, limiter, clock, recoveryCodeDigest);
  // Passkeys are bound to PUBLIC_URL: its host name is the relying party id, its origin the only
  // origin whose responses count.
  const passkeys = new PasskeyService(db, limiter, clock, { id: new URL(config.publicUrl).hostname, name: 'Siteward', origin: config.publicOrigin });
  const auth = new AuthService(users, hasher, jwt, limiter, totp, securityEvents);
  const accessTokens = new AccessTokenService(db, clock);
  const sites = new SiteService({ db, dialect: database.dialect, clock, secrets, cache });

  const emailVerification = new EmailVerificationService(db, limiter, mailer, clock, config.publicUrl);
  // Single sign-on: providers are discovered in the background from start-up; one that does not
  // answer is retried and holds nothing else back.
  const oidcProviders = new OidcProviders(config.oidcProviders, { log: app.log, clock, publicUrl: config.publicUrl }, options.oidc);
  app.addHook('onReady', async () => oidcProviders.start());
  app.addHook('onClose', async () => oidcProviders.close());
  const singleSignOn = new SingleSignOn({ db, clock, users, signupOpen: config.signup === 'open' });
  const pendingIdentityLinks = new PendingIdentityLinks({ db, clock, secrets, sessions, singleSignOn, securityEvents, providers: oidcProviders });
  registerAuthRoutes(app, { auth, emailVerification, signup: config.signup, oidcProviders });
  registerWebSignInRoutes(app, { auth, guard, sessions, magicLinks, emailVerification, totp, securityEvents, publicOrigin: config.publicOrigin });
  const claims = new AccountClaimService(db, sessions, totp, clock);
  const emailChanges = new EmailChangeService(db, limiter, mailer, clock, config.publicUrl);
  registerEmailVerificationRoutes(app, { guard, sessions, emailVerification, emailChanges, claims, pendingClaimSignIns: pendingIdentityLinks, securityEvents, publicOrigin: config.publicOrigin });
  registerOidcRoutes(app, {
    guard,
    sessions,
    providers: oidcProviders,
    requests: new AuthorizationRequests(db, clock, secrets),
    singleSignOn,
    identities: new IdentityService({ db, dialect: database.dialect }),
    pendingLinks: pendingIdentityLinks,
    securityEvents,
    limiter,
    clock,
    publicUrl: config.publicUrl,
    publicOrigin: config.publicOrigin,
  });
  registerProfileRoutes(app, { guard, profile: new ProfileService(db, clock), emailChanges });
  const passwordChanges = new PasswordChangeService(db, hasher, limiter, sessions, clock);
  const reauthentication = new ReauthenticationService({ db, hasher, limiter, totp, passkeys, sessions, jwt, clock, recentAuthentication });
  const accountDeletion = new AccountDeletionService({ db, dialect: database.dialect, clock, sessions, cache });
  registerAccountRoutes(app, { guard, sessions, passwordChanges, securityEvents, recentAuthentication, reauthentication, passkeys, accountDeletion });
  registerTotpRoutes(app, { guard, totp, securityEvents });
  registerSecurityEventRoutes(app, { guard, history: new SecurityHistory({ db }) });
  registerPasskeyRoutes(app, { guard, passkeys, sessions, securityEvents, publicOrigin: config.publicOrigin });
  registerAccessTokenRoutes(app, { guard, accessTokens, securityEvents });
  const reads = new SiteReads(sites, cache);
  const siteHistory = new SiteHistory({ db, dialect: database.dialect, clock, cache, sites, trashRetentionDays: config.trashRetentionDays });
  registerSiteRoutes(app, { guard, sites, history: siteHistory, reads });
  const siteEventStreams = new SiteEventStreams(
    { db, cache, log: app.log, maxStreams: config.publicStreamsMax },
    { ...DEFAULT_STREAM_OPTIONS, maxAgeMs: DEFAULT_SITE_EVENT_STREAM_MAX_AGE_MS, ...options.delivery, ...options.siteEvents },
  );
  // Before the server stops taking connections, as the public streams.
  app.addHook('preClose', async () => siteEventStreams.close());
  registerSiteEventRoutes(app, { guard, reads, streams: siteEventStreams });
  const changeRequests = new ChangeRequestService({ db, dialect: database.dialect, clock, secrets, cache, sites, mailer, publicUrl: config.publicUrl });
  registerChangeRequestRoutes(app, { guard, changeRequests, secrets });
  // Where pages fetch sites' configurations from: gathered in memory, written in batches, the rest at close.
  const publicOrigins = new PublicOrigins({ db, clock, onError: backgroundFailure('recording where public configurations were fetched from failed') }, { ...DEFAULT_ORIGIN_OPTIONS, ...options.publicOrigins });
  app.addHook('onClose', () => publicOrigins.close());
  registerSiteDeliveryRoutes(app, {
    guard,
    rotation: new PublicKeyRotation({ db, dialect: database.dialect, clock, cache }),
    install: new SiteInstall({ sites, origins: publicOrigins, clock, publicUrl: config.publicUrl }),
  });
  const publicConfigs = new PublicConfigs(db, cache, clock);
  const publicAnswers = new PublicAnswers(headers.publicPath, config.publicMaxAgeSeconds);
  const publicStreams = new PublicStreams({ configs: publicConfigs, cache, clock, log: app.log, maxStreams: config.publicStreamsMax, maxStreamsPerAddress: config.publicStreamsPerAddress }, { ...DEFAULT_STREAM_OPTIONS, ...options.delivery });
  // Before the server stops taking connections: open streams would otherwise hold its close forever.
  app.addHook('preClose', async () => publicStreams.close());
  // What reaches the public path, per site and hour: counted in memory, written every 30 s and at close.
  const usage = new UsageCounter(
    { db, clock, openStreams: () => publicStreams.openPerSite(), onError: backgroundFailure('recording usage of the public path failed') },
    { ...DEFAULT_USAGE_OPTIONS, retentionDays: config.usageRetentionDays, ...options.usage },
  );
  registerUsageRoutes(app, { guard, usage: new UsageService({ db, clock, sites }) });
  registerPublicRoutes(app, {
    configs: publicConfigs,
    answers: publicAnswers,
    streams: publicStreams,
    answered: (siteId, origin, referer) => publicOrigins.record(siteId, origin, referer),
    counted: (siteId, status, origin, referer) => usage.answered(siteId, status, origin, referer),
    streamOpened: (siteId) => usage.streamOpened(siteId, publicStreams.openFor(siteId)),
    preview: (publicKey, token) => changeRequests.preview(publicKey, token),
  });
  const fastPathClient = clientAddress(config.trustProxy);
  // The fast path's answers are logged summed per client and URL each second, the rest line by line.
  const served = new ServedConfigurations(loggers.requestLines, LOG_FLUSH_INTERVAL_MS);
  app.addHook('onClose', async () => served.close());
  // Prometheus metrics on a listener of their own (METRICS_PORT), never on this one.
  const metrics = config.metricsPort === null ? undefined : new Metrics({ db, database: database.usage, clock, cache, mailer, openStreams: () => publicStreams.size, publicUsage: usage.totals });
  if (metrics !== undefined) {
    app.addHook('onResponse', async (request, reply) => {
      metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    });
    const metricsPort = config.metricsPort;
    const listener = createMetricsServer(metrics);
    app.addHook('onReady', async () => listenOn(listener, metricsPort ?? 0, config.host));
    app.addHook('onClose', async () => closeServer(listener));
  }
  publicFastPathHandler = publicFastPath({
    configs: publicConfigs,
    answers: publicAnswers,
    answered: (request, method, status, startedAt, siteId) => {
      metrics?.observeRequest(PUBLIC_CONFIG_ROUTE, method, status, (performance.now() - startedAt) / 1000);
      publicOrigins.record(siteId, request.headers.origin, request.headers.referer);
      usage.answered(siteId, status, request.headers.origin, request.headers.referer);
      served.count(fastPathClient(request), method, request.url ?? '', status);
    },
  });
  registerSettingsSchemaRoutes(app, { guard });
  const partnerChecks = new PartnerCheckService({
    db,
    dialect: database.dialect,
    cache,
    sites,
    limiter,
    checker: new PartnerChecker({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs: config.partnerCheckTimeoutMs }),
    clock,
    log: app.log,
    alerts: new PartnerAlerts({ db, mailer, publicUrl: config.publicUrl }),
  });
  registerPartnerRoutes(app, { guard, checks: partnerChecks });
  const twoFactorNotices = new TwoFactorRequirementNotices(db, mailer, config.publicUrl);
  registerWorkspaceRoutes(app, { guard, workspaces: new WorkspaceService({ db, dialect: database.dialect, clock, cache }), twoFactorNotices });
  const invitations = new InvitationService({ db, dialect: database.dialect, clock, cache, limiter, mailer, publicUrl: config.publicUrl });
  registerInvitationRoutes(app, { guard, invitations, securityEvents, publicOrigin: config.publicOrigin, signupOpen: config.signup === 'open', singleSignOnProviders: () => oidcProviders.list() });
  registerAuditRoutes(app, { guard, auditLog: new AuditLog({ db }) });
  registerAdminRoutes(app, { guard, admin: new AdminService({ db, dialect: database.dialect, clock, cache }), sessions, securityEvents });
  const outboundPolicy = defaultAddressPolicy(config.outboundAllowPrivateNetworks);
  const webhooks = new WebhookService({ db, dialect: database.dialect, clock, secrets, policy: outboundPolicy, resolver: systemResolver });
  // Every app server sends the outbox; each attempt is claimed by one of them (src/webhooks/sender.ts).
  const webhookSender = new WebhookSender(
    { db, dialect: database.dialect, clock, secrets, policy: outboundPolicy, resolver: systemResolver, mailer, log: app.log, publicUrl: config.publicUrl, onError: backgroundFailure('sending webhooks failed') },
    options.webhooks,
  );
  registerWebhookRoutes(app, { guard, webhooks, sender: webhookSender });
  // Every app server looks for due scheduled changes; each is claimed by one of them (src/change-requests/scheduler.ts).
  const scheduledChanges = new ScheduledChanges({ db, dialect: database.dialect, clock, changeRequests, onError: backgroundFailure('applying scheduled changes failed') }, options.scheduledChanges);
  // Hourly clean-up of ended sessions, tokens, rate-limit windows and old audit events; every server may run it.
  const pruning = everyInterval(
    60 * 60 * 1000,
    () => pruneStaleRows(db, limiter, clock, { auditDays: config.auditRetentionDays, trashDays: config.trashRetentionDays }),
    backgroundFailure('pruning stale rows failed'),
  );
  // Public documents never expire by time: each server checks the ones it holds against the database instead.
  const publicCheck = everyInterval(PUBLIC_CHECK_INTERVAL_MS, () => publicConfigs.check(), backgroundFailure('checking held public configurations against the database failed'));
  // Enabled partner integrations are re-checked every PARTNER_CHECK_INTERVAL seconds, when it is set.
  const partnerRechecks =
    config.partnerCheckIntervalSeconds > 0 ? [new PartnerRecheckScheduler({ db, checks: partnerChecks, clock, log: app.log, intervalSeconds: config.partnerCheckIntervalSeconds })] : [];
  // Every background job of the app server, started when it is ready and stopped when it closes.
  runBackgroundJobs(app, [webhookSender, scheduledChanges, pruning, publicCheck, usage, ...partnerRechecks]);
  app.addHook('onClose', async () => outage.close());

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    try {
      await sql`select 1`.execute(db);
    } catch {
      throw new AppError(503, HTTP_ERRORS.DATABASE_UNAVAILABLE, 'The database does not answer.');
    }
    return { status: 'ok' };
  });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerEmbedScript(app);
  registerDashboard(app, (request, reply) => guard.isSignedInPage(request, reply));

  return app;
}
