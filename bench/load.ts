import autocannon, { type Request } from 'autocannon';
import { cpuMicros, type OwnProcesses, otherShare, readCpu } from './cpu.js';

export interface LoadResult {
  /** Responses per second over the run, whatever their status (non2xx says how many were not 2xx). */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  responses: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  statusCodes: Record<string, number>;
  /** Responses from each server, in the order of LoadOptions.urls. */
  responsesPerServer: number[];
  durationSeconds: number;
  /**
   * The share of the machine's CPU time (0–1) that processes other than the benchmark's used
   * during the run: near 0 on a quiet machine; more means the figures were disturbed.
   */
  otherCpuShare: number;
  /**
   * CPU time (user + system) the servers under load used per answer, in µs. Unlike requests/s it
   * holds when other processes share the machine: what they take slows a server down, but does
   * not make its requests cost more CPU. NaN when no answer came.
   */
  serverCpuMicrosPerAnswer: number;
  /**
   * When the paced run sent its first request and received its last answer, in microseconds of
   * the monotonic clock that V8's CPU profiles time their samples by (`--profile`; profile-summary
   * cuts a profile to these). Saturated runs have none.
   */
  monotonicMicros?: { from: number; to: number };
}

export interface LoadOptions {
  /**
   * One URL per server behind the load. With several, the connections are spread evenly over them
   * (one autocannon instance each, started together) and their figures combined as one run.
   */
  urls: readonly string[];
  /** The process ids of those servers, whose CPU time is counted. */
  serverPids: readonly number[];
  connections: number;
  durationSeconds: number;
  /** The requests connection `index` cycles through, prebuilt once so the load generator stays cheap. */
  requestsForConnection: (index: number) => Request[];
  /** Whose CPU time is the benchmark's own; the rest of the machine's is a disturbance. */
  ownProcesses: OwnProcesses;
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Connections per server: an even share, the remainder to the first servers. */
export function spreadConnections(connections: number, servers: number): number[] {
  return Array.from({ length: servers }, (_, index) => Math.floor(connections / servers) + (index < connections % servers ? 1 : 0)).filter((count) => count > 0);
}

/**
 * One load run, from this (the benchmark's) process, never from a server's. Latencies are kept at
 * full precision from autocannon's per-response event: its own histogram rounds to whole
 * milliseconds, too coarse for a 10 ms p99 target.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let connection = 0;
  // The window is timed here, from the first request sent to the last answer: autocannon's own
  // clock also covers building every connection's requests, before any is sent.
  let firstSentAt = Number.POSITIVE_INFINITY;
  let lastAnsweredAt = 0;
  const record = (responseTime: number) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
    const now = performance.now();
    firstSentAt = Math.min(firstSentAt, now - responseTime);
    lastAnsweredAt = now;
  };
  const cpuBefore = await readCpu(options.ownProcesses);
  const serverCpuBefore = cpuMicros(options.serverPids);
  const shares = spreadConnections(options.connections, options.urls.length);
  const results = await Promise.all(
    shares.map(
      (connections, server) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          const instance = autocannon(
            {
              url: options.urls[server] ?? '',
              connections,
              duration: options.durationSeconds,
              pipelining: 1,
              timeout: 10,
              // autocannon stops at the first sampling tick after the duration: tick often, stop on time.
              sampleInt: 100,
              // Numbered across all instances, so every connection cycles through its own slice.
              setupClient: (client) => client.setRequests(options.requestsForConnection(connection++)),
            },
            (error: unknown, finished) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(finished)),
          );
          instance.on('response', (_client, _statusCode, _bytes, responseTime) => record(responseTime));
        }),
    ),
  );
  const serverCpuMicros = cpuMicros(options.serverPids) - serverCpuBefore;
  const cpuAfter = await readCpu(options.ownProcesses);
  const sorted = latencies.subarray(0, count).sort();
  const statusCodes: Record<string, number> = {};
  const responsesPerServer = results.map((result) => {
    let responses = 0;
    for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
      statusCodes[code] = (statusCodes[code] ?? 0) + (stats.count ?? 0);
      responses += stats.count ?? 0;
    }
    return responses;
  });
  const durationSeconds = count > 0 ? (lastAnsweredAt - firstSentAt) / 1000 : Math.max(0, ...results.map((result) => result.duration));
  return {
    requestsPerSecond: durationSeconds > 0 ? count / durationSeconds : 0,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    responses: count,
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    statusCodes,
    responsesPerServer,
    durationSeconds,
    otherCpuShare: otherShare(cpuBefore, cpuAfter),
    serverCpuMicrosPerAnswer: count > 0 ? serverCpuMicros / count : Number.NaN,
  };
}
