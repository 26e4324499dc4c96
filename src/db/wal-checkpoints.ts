import { once } from 'node:events';
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * How many WAL pages the writing connection lets gather before it checkpoints itself, on the event
 * loop. SQLite's default, 1,000 pages, made every few hundred writes stop the process for the
 * checkpoint's fsyncs, during which no request is answered (docs/decisions/storage-sqlite-connections.md). The
 * checkpoints are made by a thread of their own instead (WalCheckpoints); this is the back-stop for
 * when that thread cannot finish one: a checkpoint that runs while a write commits leaves pages
 * behind, and the WAL only starts over once one has copied them all, which under writes without a
 * pause only the writer itself can do. So the event loop still checkpoints, once per 10,000 pages
 * (40 MB) instead of 1,000, and the WAL file stays below about that size.
 */
export const WRITER_WAL_AUTOCHECKPOINT_PAGES = 10_000;

/** How often the checkpointing thread copies the WAL's new pages into the database file. */
export const WAL_CHECKPOINT_INTERVAL_MS = 250;

/**
 * The WAL's size at which the thread starts. Until then nothing needs checkpointing, and starting a
 * thread (its own V8 and SQLite) costs CPU (docs/performance.md, "The test suite"): a CLI command,
 * a quiet install or a test never pays it, while a server taking writes passes this within seconds.
 */
export const WAL_BYTES_BEFORE_THREAD = 1024 * 1024;

/** How often, until the thread starts, the WAL's size is read (one stat). */
export const WAL_WATCH_INTERVAL_MS = 1_000;

const STOPPED = Symbol('stopped');

/** What one checkpoint did, as SQLite's `wal_checkpoint` reports it. */
export interface CheckpointResult {
  /** 1 when it could not run (another checkpoint was running). */
  busy: number;
  /** Pages in the WAL. */
  log: number;
  /** Pages of it now in the database file. */
  checkpointed: number;
}

/** What the thread is given to start (checkpoint-worker.ts). */
export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

/** Messages to the thread, and its answers to `now`. */
export type CheckpointRequest = 'now' | 'stop';
export type CheckpointAnswer = { result: CheckpointResult } | { error: string };

/**
 * PASSIVE checkpoints of a SQLite database in WAL mode, made on a thread of their own with a
 * connection of their own: the fsyncs wait there, not on the event loop. A PASSIVE checkpoint
 * never takes the write lock, so writers and readers of any connection go on meanwhile.
 * The thread starts once the WAL passes WAL_BYTES_BEFORE_THREAD (or `now` asks for a checkpoint).
 * Should the thread fail, `onFailure` is told, so that the writing connection checkpoints on its
 * own again.
 */
export class WalCheckpoints {
  readonly #file: string;
  readonly #onFailure: () => void;
  readonly #intervalMs: number;
  #watch: NodeJS.Timeout | undefined;
  #thread: { worker: Worker; exited: Promise<typeof STOPPED> } | undefined;
  #stopped = false;

  constructor(
    file: string,
    onFailure: () => void,
    { intervalMs = WAL_CHECKPOINT_INTERVAL_MS, startAtBytes = WAL_BYTES_BEFORE_THREAD, watchIntervalMs = WAL_WATCH_INTERVAL_MS } = {},
  ) {
    this.#file = file;
    this.#onFailure = onFailure;
    this.#intervalMs = intervalMs;
    this.#watch = setInterval(() => {
      if ((statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) >= startAtBytes) this.#start();
    }, watchIntervalMs);
    this.#watch.unref();
  }

  /** Whether the thread has started (the WAL has grown past startAtBytes, or `now` was called). */
  get running(): boolean {
    return this.#thread !== undefined;
  }

  #start(): { worker: Worker; exited: Promise<typeof STOPPED> } {
    clearInterval(this.#watch);
    if (this.#thread !== undefined) return this.#thread;
    const data: CheckpointWorkerData = { file: this.#file, intervalMs: this.#intervalMs };
    const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: data });
    // Like the timers of the process, it keeps nobody alive: a process that ends without closing
    // its database leaves a WAL that SQLite reads on the next open.
    worker.unref();
    // Not events.once: it would reject on the thread's 'error', which onFailure handles, and the
    // rejection, awaited by no one until close, would end the process.
    const exited = new Promise<typeof STOPPED>((resolve) => worker.once('exit', () => resolve(STOPPED)));
    worker.on('error', this.#onFailure);
    this.#thread = { worker, exited };
    return this.#thread;
  }

  /** One checkpoint now, on the thread (what the tests wait for instead of the interval). */
  async now(): Promise<CheckpointResult> {
    if (this.#stopped) throw new Error('WAL checkpoint failed: the checkpointing thread has stopped');
    const { worker, exited } = this.#start();
    const answer = once(worker, 'message') as Promise<[CheckpointAnswer]>;
    worker.postMessage('now' satisfies CheckpointRequest);
    // A thread that has stopped (or failed) never answers.
    const replied = await Promise.race([answer, exited]);
    if (replied === STOPPED) throw new Error('WAL checkpoint failed: the checkpointing thread has stopped');
    const [reply] = replied;
    if ('error' in reply) throw new Error(`WAL checkpoint failed: ${reply.error}`);
    return reply.result;
  }

  /** Stops the thread, which closes its connection first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#watch);
    if (this.#thread === undefined) return;
    const { worker, exited } = this.#thread;
    // Held again while it stops: a caller awaiting this as its last work (a script closing its
    // database) would otherwise see its process end, the promise unsettled, before the thread's exit.
    worker.ref();
    worker.postMessage('stop' satisfies CheckpointRequest);
    await exited;
  }
}
