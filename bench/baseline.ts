// The ceiling: a bare node:http server that answers every request with the sites-list body the
// real app produced, serialised afresh each time as any JSON API must. Run as its own process by
// bench/run.ts: BENCH_BODY_FILE=list.json PORT=… node dist/bench/baseline.js
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const bodyFile = process.env.BENCH_BODY_FILE;
const port = Number(process.env.PORT);
if (bodyFile === undefined || !Number.isInteger(port) || port <= 0) {
  process.stderr.write('baseline: set BENCH_BODY_FILE and PORT\n');
  process.exit(2);
}
const document: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'));

const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.end('ok');
    return;
  }
  const body = JSON.stringify(document);
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
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
