import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { hostname } from 'node:os';
import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type LogFn, type Logger } from 'pino';
import type { AuthMethod } from '../lib/auth-method.js';

/**
 * Query parameters whose values are credentials, never logged: the tokens of mailed links (magic
 * link, address verification, invitation, change of address: `token`), a change request's preview
 * token (`preview`), the OpenID Connect callback's `state` and `code` (with the provider's
 * `session_state`, and tokens some providers put in a query), and any other name a credential
 * goes by. A parameter nested in another's value, percent-encoded (`next=%2Finvitations%2Faccept
 * %3Ftoken%3D…`), is found as well: its name follows "%3F" or "%26" and its value runs to the
 * next "%26".
 */
const SECRET_QUERY_PARAMETERS =
  /((?:[?&;]|%3F|%26)(?:token|access_token|refresh_token|id_token|code|state|session_state|preview|secret|client_secret|password|otp|recovery_code|code_verifier|nonce|signature|sig|api_key|apikey|key|jwt|session|cookie|auth|authorization)(?:=|%3D))(?:(?!%26)[^&#;])*/gi;

export function redactUrl(url: string): string {
  // A credential needs "name=" (or "%3D"): most URLs have neither, and skip the regular expression every request line ran.
  return url.includes('=') || url.includes('%3') ? url.replace(SECRET_QUERY_PARAMETERS, '$1[REDACTED]') : url;
}

/** Paths whose values are secrets wherever they appear in a logged object. */
const REDACT_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  '*.*.access_token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  'cookie',
  'otp',
  '*.otp',
  'secret',
  '*.secret',
  'recovery_codes',
  '*.recovery_codes',
];

export interface Loggers {
  /** Fastify's logger (app.log, request.log): everything but the request lines goes here, redacted. */
  app: FastifyBaseLogger;
  /** The request lines: one per finished request (RequestLogController), or summed (delivery/served-log.ts). */
  requestLines: RequestLines;
}

/**
 * The service's loggers, writing to one destination. Every object logged through `app` passes
 * pino's redaction, a second line of defence should an object with a secret ever be logged.
 * The request line does not: it is built by RequestLogController from fields that never hold a
 * secret (request id, method, the URL with its credentials stripped, the client's address, status,
 * duration, the caller's user id and credential kind), and redaction, walking eighteen paths for every line,
 * was the largest cost of a request that does little else (docs/decisions/request-logging.md).
 */
export function createLoggers(level: string, stream?: DestinationStream): Loggers {
  // One destination for both, so their lines interleave whole in one file descriptor's order.
  const destination = stream ?? logDestination();
  const app = pino({ level, redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, destination);
  return { app, requestLines: new RequestLines(app, destination) };
}

/** Characters of log lines gathered before one write; what is gathered is written at least every LOG_FLUSH_INTERVAL_MS. */
export const LOG_BATCH_CHARACTERS = 4096;
export const LOG_FLUSH_INTERVAL_MS = 1000;

/**
 * Log lines gathered in memory and written together: a write per line is a system call per
 * request, even on the public path that otherwise answers from memory (docs/decisions/request-logging.md). The
 * lines are kept as a list and joined once per write, not appended to one string as sonic-boom's
 * own buffer does: that buffer measures its whole pending string in bytes at every line, which
 * copies it each time. The writes stay synchronous, so none is ever in flight: when the process
 * exits, by process.exit, at the end of its work or on an uncaught exception, what is gathered is
 * written before it goes. A quiet server still writes each line within a second; only a SIGKILL
 * or a power cut can lose the last second's lines.
 */
export class BatchedLogDestination implements DestinationStream {
  #lines: string[] = [];
  #length = 0;

  constructor(
    private readonly out: ReturnType<typeof pino.destination>,
    private readonly batchLength = LOG_BATCH_CHARACTERS,
    flushIntervalMs = LOG_FLUSH_INTERVAL_MS,
  ) {
    setInterval(() => this.flush(), flushIntervalMs).unref();
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#length += line.length;
    if (this.#length >= this.batchLength) this.flush();
  }

  /** Writes what is gathered, now. */
  flush(): void {
    if (this.#lines.length === 0) return;
    const text = this.#lines.length === 1 ? (this.#lines[0] ?? '') : this.#lines.join('');
    this.#lines = [];
    this.#length = 0;
    this.out.write(text);
  }

  flushSync(): void {
    this.flush();
    this.out.flushSync();
  }
}

/** Standard output, written in batches (BatchedLogDestination). */
export function logDestination(): BatchedLogDestination {
  const destination = new BatchedLogDestination(pino.destination({ dest: 1, sync: true }));
  process.once('exit', () => destination.flushSync());
  return destination;
}

/**
 * One line per finished request, in place of Fastify's two: the URL with credentials stripped
 * from its query, and no headers at all (they carry Authorization and cookies). A failed request
 * logs its error through the redacting logger, since an error may carry anything.
 */
export class RequestLogController extends LogController {
  constructor(private readonly lines: RequestLines) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const caller = request.principal === null ? undefined : { userId: request.principal.user.id, credential: request.principal.method };
    if (error) {
      const ms = tenths(reply.elapsedTime);
      reply.log.error(
        { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms, ip: request.ip, user_id: caller?.userId, credential: caller?.credential, err: error },
        'request failed',
      );
    } else {
      this.lines.write({ reqId: request.id, method: request.method, url: request.url, ip: request.ip, status: reply.statusCode, elapsedMs: reply.elapsedTime }, caller);
    }
  }
}

/** Who made a request, as its line names them: the user's id and the kind of credential, never the credential. */
export interface RequestCaller {
  userId: string;
  credential: AuthMethod;
}

/** What a request line says of the request itself. */
export interface RequestFacts {
  reqId: string;
  method: string;
  /** As sent: credentials in its query are stripped here. */
  url: string;
  /** The client's address as Fastify sees it: the socket's, or behind TRUST_PROXY the one the proxy names. */
  ip: string;
  status: number;
  elapsedMs: number;
}

/**
 * The request lines, put together by hand (below); level, time, pid and hostname come first, as
 * in every line pino writes.
 *
 * The line of a request that succeeded, with its client address, its time in milliseconds to a
 * tenth, and for an authenticated request its user and credential kind, so that what an account
 * did (or what was done with a stolen credential, and from where) can be traced in the log. Only
 * these fields: adding one that could hold a secret needs the redacting logger.
 *
 * A line is pino's, field for field and in pino's order (level, time, pid, hostname, the
 * fields, msg), at the app logger's level `info`, written to the same destination; but it is put
 * together as one template rather than by pino's serialiser, which walks an object for every line
 * of the one kind of line written for every request (docs/performance.md). Every value a client
 * may have chosen (method, URL, address) is escaped by JSON.stringify.
 */
export class RequestLines {
  readonly #bindings: string;

  constructor(
    private readonly logger: Pick<Logger, 'isLevelEnabled'>,
    private readonly stream: DestinationStream,
  ) {
    this.#bindings = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  }

  write(request: RequestFacts, caller: RequestCaller | undefined): void {
    if (!this.logger.isLevelEnabled('info')) return;
    const who = caller === undefined ? '' : `,"user_id":${JSON.stringify(caller.userId)},"credential":${JSON.stringify(caller.credential)}`;
    this.stream.write(
      `{"level":30,"time":${Date.now()}${this.#bindings},"reqId":${JSON.stringify(request.reqId)},"method":${JSON.stringify(request.method)},` +
        `"url":${JSON.stringify(redactUrl(request.url))},"ip":${JSON.stringify(request.ip)},"status":${request.status},"ms":${tenths(request.elapsedMs)}${who},"msg":"request"}\n`,
    );
  }

  /**
   * A line that stands for many answers: those one client address was given for one URL in an
   * interval, as `answers`, an object of counts by `METHOD status` (delivery/served-log.ts).
   */
  writeSummed(ip: string, url: string, answersJson: string): void {
    if (!this.logger.isLevelEnabled('info')) return;
    this.stream.write(
      `{"level":30,"time":${Date.now()}${this.#bindings},"ip":${JSON.stringify(ip)},"url":${JSON.stringify(redactUrl(url))},"answers":${answersJson},"msg":"public configurations served"}\n`,
    );
  }
}

function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * Fastify gives every request a child logger carrying its id (request.log). Made from the redacting
 * logger, a child is costly (pino runs the wildcard redaction over its bindings), paid by
 * every request although only failures and a few routes log through it. This one makes the real
 * child on first use, with the same bindings and options, so what it logs is unchanged.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  #logger: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  #made(): FastifyBaseLogger {
    this.#logger ??= this.parent.child(this.bindings, this.options);
    return this.#logger;
  }

  get level(): string {
    return this.#logger?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  // pino's LogFn is overloaded; the arguments are handed on exactly as they came.
  readonly fatal: LogFn = (...args: unknown[]) => this.#log('fatal', args);
  readonly error: LogFn = (...args: unknown[]) => this.#log('error', args);
  readonly warn: LogFn = (...args: unknown[]) => this.#log('warn', args);
  readonly info: LogFn = (...args: unknown[]) => this.#log('info', args);
  readonly debug: LogFn = (...args: unknown[]) => this.#log('debug', args);
  readonly trace: LogFn = (...args: unknown[]) => this.#log('trace', args);
  readonly silent: LogFn = () => undefined;

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #log(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const logger = this.#made();
    Reflect.apply(logger[level], logger, args);
  }
}

/** For Fastify's childLoggerFactory option: request loggers made on first use (see LazyChildLogger). */
export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}
