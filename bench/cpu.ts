import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

// Linux counts CPU time in USER_HZ ticks, 100 per second on every architecture Node runs on.
export const TICKS_PER_SECOND = 100;

/**
 * The process ids whose CPU time is the benchmark's own (the servers, and PostgreSQL's backends
 * for the benchmark database), asked afresh at each reading: backends come and go. This process
 * is always counted.
 */
export type OwnProcesses = () => Promise<number[]>;

/** CPU time a process has used so far, in ticks (utime + stime), or undefined once it is gone. */
export function cpuTicks(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces; the numeric fields start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * CPU time (user and system, all threads) these processes have used so far, in microseconds, at
 * the kernel's tick resolution (10 ms); a process that is gone counts nothing.
 */
export function cpuMicros(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) ticks += cpuTicks(pid) ?? 0;
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}

/** CPU time the whole machine has been busy so far, in ticks, all CPUs together (/proc/stat). */
function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).map(Number);
  return user + nice + system + irq + softirq + steal;
}

export interface CpuReading {
  at: number;
  machineBusy: number;
  own: Map<number, number>;
}

export async function readCpu(ownProcesses: OwnProcesses): Promise<CpuReading> {
  const own = new Map<number, number>();
  for (const pid of new Set([process.pid, ...(await ownProcesses())])) {
    const ticks = cpuTicks(pid);
    if (ticks !== undefined) own.set(pid, ticks);
  }
  return { at: performance.now(), machineBusy: machineBusyTicks(), own };
}

/**
 * The share (0–1) of the machine's CPU time that other processes used between two readings.
 * A process first seen in the later reading is counted whole (it started in between); one that
 * ended in between is lost, and so counts as other: the error is on the cautious side.
 */
export function otherShare(before: CpuReading, after: CpuReading): number {
  let own = 0;
  for (const [pid, ticks] of after.own) own += ticks - (before.own.get(pid) ?? 0);
  const available = ((after.at - before.at) / 1000) * TICKS_PER_SECOND * availableParallelism();
  return available > 0 ? Math.max(0, after.machineBusy - before.machineBusy - own) / available : 0;
}
