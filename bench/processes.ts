import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuTicks } from './cpu.js';

/** A server the benchmark started; it listens on 127.0.0.1 only. */
export interface ServerProcess {
  name: string;
  pid: number;
  url: string;
  logFile: string;
  /** Throws, with the end of the server's log, when the process has died. */
  assertAlive(): void;
  /** SIGTERM (a graceful close, which also writes a --cpu-prof profile), then SIGKILL after 15 s. */
  stop(): Promise<void>;
}

export interface ProcessMemory {
  /** Resident set size now (VmRSS), MiB. */
  rssMb: number;
  /** The peak resident set size so far (VmHWM), MiB. */
  peakRssMb: number;
}

/** Reads the kernel's view of a process's memory (Linux /proc). */
export function readMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kib('VmRSS') / 1024, peakRssMb: kib('VmHWM') / 1024 };
}

/**
 * Waits until the processes have been idle (at most one 10 ms tick each in 100 ms), at most
 * `maxMs`: work left from the previous run (logins still queued behind argon2, a WAL checkpoint,
 * a GC) must not be billed to the next one.
 */
export async function waitUntilIdle(pids: number[], maxMs = 10_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  const ticks = () => pids.map((pid) => cpuTicks(pid) ?? 0);
  let before = ticks();
  while (Date.now() < deadline) {
    await sleep(100);
    const now = ticks();
    if (now.every((value, index) => value - (before[index] ?? 0) <= 1)) return;
    before = now;
  }
}


export interface StartOptions {
  name: string;
  /** Node arguments then the script and its arguments. */
  args: string[];
  /** The child's whole environment: nothing of the benchmark's own environment leaks into it. */
  env: Record<string, string>;
  port: number;
  /** Where the child's stdout and stderr go: a file, so logging costs the server what it costs in production. */
  logFile: string;
  /** A path that answers 200 once the server is ready. */
  readyPath: string;
}

const running = new Set<ServerProcess>();
const STARTUP_LIMIT_MS = 90_000;

/** Stops every server still running; the benchmark's cleanup calls this on success and failure alike. */
export async function stopAllServers(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop()));
}

export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const log = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    // stdin stays a pipe: the baseline server exits when it closes, should the benchmark die.
    child = spawn(process.execPath, options.args, { env: options.env, stdio: ['pipe', log, log] });
  } finally {
    closeSync(log);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name} did not start`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${options.port}`;
  const logTail = () => readFileSync(options.logFile, 'utf8').split('\n').slice(-15).join('\n');

  const server: ServerProcess = {
    name: options.name,
    pid,
    url,
    logFile: options.logFile,
    assertAlive() {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${options.name} (pid ${pid}) exited (${child.exitCode ?? child.signalCode}); its log ends:\n${logTail()}`);
      }
    },
    async stop() {
      running.delete(server);
      child.stdin?.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
  running.add(server);

  // A bound for a server that will never answer (a crash loop, a wrong port), not a wait: on a
  // shared two-core host under heavy load the app itself has been seen to need over 30 s to start.
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  for (;;) {
    server.assertAlive();
    try {
      const response = await fetch(`${url}${options.readyPath}`);
      await response.arrayBuffer();
      if (response.ok) return server;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${options.name} did not answer ${options.readyPath} within ${STARTUP_LIMIT_MS / 1000} s; its log ends:\n${logTail()}`);
    }
    await sleep(50);
  }
}

export { freePort } from '../test/processes.js';
