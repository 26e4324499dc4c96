// The thread of WalCheckpoints (wal-checkpoints.ts): a connection of its own that copies the WAL's
// pages into the database file every few hundred milliseconds, away from the event loop.
import SQLite from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointAnswer, CheckpointResult, CheckpointWorkerData } from './wal-checkpoints.js';

function isWorkerData(value: unknown): value is CheckpointWorkerData {
  return typeof value === 'object' && value !== null && 'file' in value && typeof value.file === 'string' && 'intervalMs' in value && typeof value.intervalMs === 'number';
}

function isResult(value: unknown): value is CheckpointResult {
  return typeof value === 'object' && value !== null && 'busy' in value && 'log' in value && 'checkpointed' in value;
}

const port = parentPort;
if (port === null || !isWorkerData(workerData)) throw new Error('checkpoint-worker runs as the thread of WalCheckpoints');
const { file, intervalMs } = workerData;

const database = new SQLite(file);
// PASSIVE never waits for a lock; this connection writes nothing, so it never checkpoints on its own.
database.pragma('busy_timeout = 0');

function checkpoint(): CheckpointResult {
  const row: unknown = database.pragma('wal_checkpoint(PASSIVE)', { simple: false });
  const first: unknown = Array.isArray(row) ? row[0] : undefined;
  if (!isResult(first)) throw new Error('wal_checkpoint gave no result');
  return { busy: Number(first.busy), log: Number(first.log), checkpointed: Number(first.checkpointed) };
}

// A failed periodic checkpoint (the disk full, say) is tried again at the next tick; the writing
// connection's own back-stop (WRITER_WAL_AUTOCHECKPOINT_PAGES) bounds the WAL meanwhile.
const timer = setInterval(() => {
  try {
    checkpoint();
  } catch {
    // Tried again at the next tick.
  }
}, intervalMs);

port.on('message', (request: unknown) => {
  if (request === 'now') {
    let answer: CheckpointAnswer;
    try {
      answer = { result: checkpoint() };
    } catch (error) {
      answer = { error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer);
  } else if (request === 'stop') {
    clearInterval(timer);
    database.close();
    port.close();
  }
});
