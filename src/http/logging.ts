import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type DestinationStream } from 'pino';

/** Query parameters whose values are credentials (the magic-link token) and never logged. */
const SECRET_QUERY_PARAMETERS = /([?&](?:token|access_token|code)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMETERS, '$1[REDACTED]');
}

/**
 * The service's logger. Request lines are written by our own onResponse hook with a redacted URL
 * and no headers; the redact paths below are a second line of defence should an object with a
 * secret ever be logged.
 */
export function createLogger(level: string, stream?: DestinationStream): FastifyBaseLogger {
  const options = {
    level,
    redact: {
      paths: [
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
      ],
      censor: '[REDACTED]',
    },
  };
  return stream === undefined ? pino(options) : pino(options, stream);
}

/**
 * One line per finished request, in place of Fastify's two: the URL with credentials stripped
 * from its query, and no headers at all (they carry Authorization and cookies).
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request');
  }
}
