import type { FastifyBaseLogger } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream } from 'pino';
import { logDestination } from './log-destination.js';
import { REDACT_PATHS } from './redaction.js';
import { RequestLines } from './request-log.js';

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

  // pino's LogFn is overloaded; the arguments are handed on exactly as they came. Methods, not a
  // closure per level: a request's logger lives as long as the request, an event stream's for hours.
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#log('error', args);
  }

  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }

  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }

  silent(): void {}

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
