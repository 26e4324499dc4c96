import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { hostname } from 'node:os';
import type { DestinationStream, Logger } from 'pino';
import type { AuthMethod } from '../lib/auth-method.js';
import { redactUrl } from './redaction.js';

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
