import { connect } from 'node:net';

/** An HTTP/1.1 answer read off a socket, as the bytes came. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` (a whole HTTP/1.1 message, written as a client that bypasses fetch would write
 * it: an absolute-form target, no Host header, an Expect header) on a new loopback connection, and
 * reads the answer until the server closes the connection. Send `Connection: close` for a request
 * the server answers and keeps the connection for.
 */
export function rawRequest(port: number, request: string, waitMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${waitMs} ms: ${Buffer.concat(chunks).toString('latin1')}`));
    }, waitMs);
    socket.on('data', (data: Buffer) => chunks.push(data));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve(parseAnswer(Buffer.concat(chunks).toString('latin1')));
    });
  });
}

function parseAnswer(text: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = end === -1 ? '' : text.slice(end + 4);
  // Fastify answers a JSON body in one chunk when it is not compressed; a chunked one is decoded here.
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function dechunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    if (lineEnd === -1) return out;
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
