// The public path's ceiling: a bare node:http server that sends exactly the answers the app gave
// for each public key of the scenarios: the key's 200 (headers and body) to a request for it, or
// its 304 to a request with If-None-Match. Run as its own process by bench/run.ts:
// BENCH_ANSWERS_FILE=public.json PORT=… node dist/bench/public-ceiling.js
// With BENCH_USAGE_COUNTING=1 it also counts each answer with the app's own usage counter, as the
// app's public path does: the two ceilings' CPU per request differ by what the counting costs.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../src/db/schema.js';
import { systemClock } from '../src/lib/clock.js';
import { DEFAULT_USAGE_OPTIONS, UsageCounter } from '../src/usage/counter.js';

/** What bench/run.ts captured from the app for one path, as the app sent it (node's own Date and Connection aside). */
export interface CapturedAnswer {
  ok: { headers: OutgoingHttpHeaders; body: string };
  notModified: { headers: OutgoingHttpHeaders };
}

/** Path → the app's answers for it. */
export type CapturedAnswers = Record<string, CapturedAnswer>;

const answersFile = process.env.BENCH_ANSWERS_FILE;
const port = Number(process.env.PORT);
if (answersFile === undefined || !Number.isInteger(port) || port <= 0) {
  process.stderr.write('public-ceiling: set BENCH_ANSWERS_FILE and PORT\n');
  process.exit(2);
}
const captured = JSON.parse(readFileSync(answersFile, 'utf8')) as CapturedAnswers;
// Each key's answer found by its path, as any server holding many documents must find it.
const answers = new Map(
  Object.entries(captured).map(([path, answer]) => [path, { okHeaders: answer.ok.headers, body: Buffer.from(answer.ok.body, 'base64'), notModifiedHeaders: answer.notModified.headers }]),
);

/**
 * The counter is never started, so it never writes: counting in memory is the per-request cost;
 * the app's write every 30 s is not a request's. Its database is there for the type only.
 */
const counter =
  process.env.BENCH_USAGE_COUNTING === '1'
    ? new UsageCounter(
        { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) }), clock: systemClock, openStreams: () => new Map(), onError: () => undefined },
        DEFAULT_USAGE_OPTIONS,
      )
    : undefined;
const count = (request: IncomingMessage, path: string, status: number) => counter?.answered(path, status, request.headers.origin, request.headers.referer);

const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.end('ok');
    return;
  }
  const answer = answers.get(request.url ?? '');
  if (answer === undefined) {
    response.writeHead(404);
    response.end();
    return;
  }
  if (request.headers['if-none-match'] !== undefined) {
    response.writeHead(304, answer.notModifiedHeaders);
    response.end();
    count(request, request.url ?? '', 304);
    return;
  }
  response.writeHead(200, answer.okHeaders);
  response.end(answer.body);
  count(request, request.url ?? '', 200);
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
