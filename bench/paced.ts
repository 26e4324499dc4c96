import { Agent, request as httpRequest } from 'node:http';
import { cpuTicks, type OwnProcesses, otherShare, readCpu, TICKS_PER_SECOND } from './cpu.js';
import type { LoadResult } from './load.js';
import type { HttpRequest } from './scenarios.js';

export interface PacedOptions {
  /** One URL per server; request i goes to server i mod n, so the servers share the rate evenly. */
  urls: readonly string[];
  /** Whose CPU time is the cost: the servers, and where it counts, PostgreSQL's backends (asked at each end). */
  costPids: () => Promise<number[]>;
  /** Requests a second, sent evenly whatever the answers do (an open loop, as clients behave). */
  rate: number;
  count: number;
  /** Cycled through in order. */
  requests: readonly HttpRequest[];
  ownProcesses: OwnProcesses;
}

/** Answers still out when this passes count as errors. */
const ANSWER_TIMEOUT_MS = 10_000;

interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

function prepare(request: HttpRequest): Prepared {
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  // A stated length, so node sends the body whole rather than chunked.
  const headers = body === undefined ? request.headers : { ...request.headers, 'content-length': String(body.length) };
  return { method: request.method, path: request.path, headers, body };
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

function ticksOf(pids: readonly number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const value = cpuTicks(pid);
    if (value !== undefined) ticks.set(pid, value);
  }
  return ticks;
}

/**
 * `count` requests at an even `rate`, from this process, over kept-alive connections (as many as
 * the answers in flight need). Each latency runs from the request's send to its answer's last
 * byte. The send loop wakes every millisecond and sends what is due, so at 5,000/s a handful
 * leave together: paced to the millisecond, unlike autocannon's rate limit, which sends each
 * second's requests in one burst.
 */
export async function runPaced(options: PacedOptions): Promise<LoadResult> {
  const prepared = options.requests.map(prepare);
  const agents = options.urls.map(() => new Agent({ keepAlive: true, maxSockets: 512 }));
  const latencies = new Float64Array(options.count);
  const statusCodes: Record<string, number> = {};
  const responsesPerServer = options.urls.map(() => 0);
  let answered = 0;
  let errors = 0;
  let lastAnsweredAt = 0;

  const cpuBefore = await readCpu(options.ownProcesses);
  const costBefore = ticksOf(await options.costPids());
  const startedAt = performance.now();
  const startedMicros = monotonicMicros();

  await new Promise<void>((resolve) => {
    let sent = 0;
    let settled = 0;
    const settle = () => {
      if (++settled === options.count) resolve();
    };
    const send = (index: number) => {
      const request = prepared[index % prepared.length];
      const server = index % options.urls.length;
      if (request === undefined) {
        errors++;
        settle();
        return;
      }
      const sentAt = performance.now();
      // A request ends once: answered, or failed (the request's error, or the answer's cut short).
      let ended = false;
      const failed = () => {
        if (ended) return;
        ended = true;
        errors++;
        settle();
      };
      const outgoing = httpRequest(`${options.urls[server] ?? ''}${request.path}`, { method: request.method, headers: request.headers, agent: agents[server] }, (response) => {
        response.on('data', () => undefined);
        response.on('end', () => {
          if (ended) return;
          ended = true;
          lastAnsweredAt = performance.now();
          latencies[answered++] = lastAnsweredAt - sentAt;
          const status = String(response.statusCode ?? 0);
          statusCodes[status] = (statusCodes[status] ?? 0) + 1;
          responsesPerServer[server] = (responsesPerServer[server] ?? 0) + 1;
          settle();
        });
        response.on('error', failed);
      });
      outgoing.setTimeout(ANSWER_TIMEOUT_MS, () => outgoing.destroy(new Error('timed out')));
      outgoing.on('error', failed);
      outgoing.end(request.body);
    };
    const tick = () => {
      const due = Math.min(options.count, Math.floor(((performance.now() - startedAt) * options.rate) / 1000) + 1);
      while (sent < due) send(sent++);
      if (sent < options.count) setTimeout(tick, 1);
    };
    if (options.count === 0) resolve();
    else tick();
  });

  const costAfter = ticksOf(await options.costPids());
  const cpuAfter = await readCpu(options.ownProcesses);
  for (const agent of agents) agent.destroy();
  // A process first seen at the end (a backend the pool opened in between) counts whole.
  let costTicks = 0;
  for (const [pid, ticks] of costAfter) costTicks += ticks - (costBefore.get(pid) ?? 0);
  const sorted = latencies.subarray(0, answered).sort();
  const durationSeconds = answered > 0 ? (lastAnsweredAt - startedAt) / 1000 : 0;
  const non2xx = Object.entries(statusCodes).reduce((sum, [status, count]) => sum + (status.startsWith('2') ? 0 : count), 0);
  return {
    requestsPerSecond: durationSeconds > 0 ? answered / durationSeconds : 0,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    responses: answered,
    non2xx,
    errors,
    statusCodes,
    responsesPerServer,
    durationSeconds,
    otherCpuShare: otherShare(cpuBefore, cpuAfter),
    serverCpuMicrosPerAnswer: answered > 0 ? (costTicks * 1_000_000) / TICKS_PER_SECOND / answered : Number.NaN,
    monotonicMicros: { from: startedMicros, to: startedMicros + Math.max(0, lastAnsweredAt - startedAt) * 1000 },
  };
}

/** The monotonic clock in microseconds, as a CPU profile's `startTime` and sample times are. */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
