import type { Socket } from 'node:net';
import { AppError, problem } from '../errors.js';
import { rawProblemResponse } from './error-handler.js';
import { HTTP_ERRORS } from './errors.js';
import type { ResponseHeaders } from './security-headers.js';
import { hasUnknownExpectation } from './server.js';
import type { App } from './types.js';

/**
 * The rules of HTTP/1.1 that node:http would enforce itself, with an empty body and none of our
 * headers, enforced here instead so that their answers are problems like every other error
 * (docs/api.md, Errors), with the security headers (set by the hook registered before this one)
 * and a log line:
 * - an HTTP/1.1 request must name its host (RFC 9112 3.2): 400 `malformed_request`;
 * - an Expect header may only ask for `100-continue` (RFC 9110 10.1.1): 417 `expectation_failed`;
 * - CONNECT asks for a tunnel, which this server (no proxy) never opens: 405, and the connection
 *   closes, as node would close it.
 * The first two close the connection: the body that may follow is not read.
 */
export function registerProtocolRules(app: App, headers: ResponseHeaders): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1 && request.headers.host === undefined) {
      reply.header('connection', 'close');
      done(new AppError(400, HTTP_ERRORS.MALFORMED_REQUEST, 'An HTTP/1.1 request must carry a Host header.'));
      return;
    }
    if (hasUnknownExpectation(request.headers.expect)) {
      reply.header('connection', 'close');
      done(new AppError(417, HTTP_ERRORS.EXPECTATION_FAILED, 'The only expectation this server meets is Expect: 100-continue.'));
      return;
    }
    done();
  });
  app.server.on('connect', (_request: unknown, socket: Socket) => {
    const refusal = problem(405, HTTP_ERRORS.BAD_REQUEST, 'This server opens no tunnels: CONNECT is not supported.');
    if (socket.writable) socket.write(rawProblemResponse(refusal, headers.noStore));
    socket.destroy();
  });
}
