import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type LogFn } from 'pino';
import type { AuthMethod } from '../lib/auth-method.js';

/** Query parameters whose values are credentials (the magic-link token) and never logged. */
const SECRET_QUERY_PARAMETERS = /([?&](?:token|access_token|code)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  // A credential needs "name=": most URLs have none, and skip the regular expression every request line ran.
  return url.includes('=') ? url.replace(SECRET_QUERY_PARAMETERS, '$1[REDACTED]') : url;
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
  /** Fastify's logger (app.log, request.log): everything but the request line goes here, redacted. */
  app: FastifyBaseLogger;
  /** The one line per finished request; see RequestLogController. */
  requestLines: FastifyBaseLogger;
}

/**
 * The service's loggers, writing to one destination. Every object logged through `app` passes
 * pino's redaction, a second line of defence should an object with a secret ever be logged.
 * The request line does not: it is built by RequestLogController from fields that never hold a
 * secret (request id, method, the URL with its credentials stripped, the client's address, status,
 * duration, the caller's user id and credential kind), and redaction, walking eighteen paths for every line,
 * was the largest cost of a request that does little else (docs/performance.md).
 */
export function createLoggers(level: string, stream?: DestinationStream): Loggers {
  // One destination for both, so their lines interleave whole in one file descriptor's order.
  const destination = stream ?? logDestination();
  const requestLines = pino({ level }, destination);
  const app = pino({ level, redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, destination);
  return { app, requestLines };
}

/** Bytes of log lines gathered before one write; what is gathered is written at least every LOG_FLUSH_INTERVAL_MS. */
export const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_INTERVAL_MS = 1000;

/**
 * Standard output, written in batches: a write per line is a system call per request, even on
 * the public path that otherwise answers from memory (docs/performance.md). The writes
 * stay synchronous, so none is ever in flight: when the process exits, by process.exit, at the end
 * of its work or on an uncaught exception, what is buffered is written before it goes. A quiet
 * server still writes each line within a second; only a SIGKILL or a power cut can lose the last
 * second's lines.
 */
export function logDestination(): ReturnType<typeof pino.destination> {
  const destination = pino.destination({ dest: 1, sync: true, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS });
  process.once('exit', () => destination.flushSync());
  return destination;
}

/**
 * One line per finished request, in place of Fastify's two: the URL with credentials stripped
 * from its query, and no headers at all (they carry Authorization and cookies). A failed request
 * logs its error through the redacting logger, since an error may carry anything.
 */
export class RequestLogController extends LogController {
  constructor(private readonly lines: FastifyBaseLogger) {
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
      logRequestLine(this.lines, { reqId: request.id, method: request.method, url: request.url, ip: request.ip, status: reply.statusCode, elapsedMs: reply.elapsedTime }, caller);
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
 * The line of a request that succeeded, with its client address, its time in milliseconds to a
 * tenth, and for an authenticated request its user and credential kind, so that what an account
 * did (or what was done with a stolen credential, and from where) can be traced in the log. Only
 * these fields: adding one that could hold a secret needs the redacting logger.
 */
function logRequestLine(lines: FastifyBaseLogger, request: RequestFacts, caller: RequestCaller | undefined): void {
  const { reqId, method, ip, status } = request;
  const url = redactUrl(request.url);
  const ms = tenths(request.elapsedMs);
  if (caller === undefined) lines.info({ reqId, method, url, ip, status, ms }, 'request');
  else lines.info({ reqId, method, url, ip, status, ms, user_id: caller.userId, credential: caller.credential }, 'request');
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
