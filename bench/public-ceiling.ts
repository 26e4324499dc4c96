// The public path's ceiling: a bare node:http server that sends exactly the answers the app gave
// the public-config scenario's first request: its 200 (headers and body) to every request, or its
// 304 to a request with If-None-Match. Run as its own process by bench/run.ts:
// BENCH_ANSWERS_FILE=public.json PORT=… node dist/bench/public-ceiling.js
import { readFileSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders } from 'node:http';

/** What bench/run.ts captured from the app, as the app sent it (node's own Date and Connection aside). */
export interface CapturedAnswers {
  ok: { headers: OutgoingHttpHeaders; body: string };
  notModified: { headers: OutgoingHttpHeaders };
}

const answersFile = process.env.BENCH_ANSWERS_FILE;
const port = Number(process.env.PORT);
if (answersFile === undefined || !Number.isInteger(port) || port <= 0) {
  process.stderr.write('public-ceiling: set BENCH_ANSWERS_FILE and PORT\n');
  process.exit(2);
}
const captured = JSON.parse(readFileSync(answersFile, 'utf8')) as CapturedAnswers;
const body = Buffer.from(captured.ok.body, 'base64');

const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.end('ok');
    return;
  }
  if (request.headers['if-none-match'] !== undefined) {
    response.writeHead(304, captured.notModified.headers);
    response.end();
    return;
  }
  response.writeHead(200, captured.ok.headers);
  response.end(body);
});

function close(): void {
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.on('SIGTERM', close);
process.on('SIGINT', close);
// The benchmark holds our stdin open; when it goes away, so do we, even if it died without cleaning up.
process.stdin.on('end', close).resume();

server.listen(port, '127.0.0.1');
