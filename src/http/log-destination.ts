import pino, { type DestinationStream } from 'pino';

/** Characters of log lines gathered before one write; what is gathered is written at least every LOG_FLUSH_INTERVAL_MS. */
export const LOG_BATCH_CHARACTERS = 4096;
export const LOG_FLUSH_INTERVAL_MS = 1000;

/**
 * Log lines gathered in memory and written together: a write per line is a system call per
 * request, even on the public path that otherwise answers from memory (docs/decisions/request-logging.md). The
 * lines are kept as a list and joined once per write, not appended to one string as sonic-boom's
 * own buffer does: that buffer measures its whole pending string in bytes at every line, which
 * copies it each time. The writes stay synchronous, so none is ever in flight: when the process
 * exits, by process.exit, at the end of its work or on an uncaught exception, what is gathered is
 * written before it goes. A quiet server still writes each line within a second; only a SIGKILL
 * or a power cut can lose the last second's lines.
 */
export class BatchedLogDestination implements DestinationStream {
  #lines: string[] = [];
  #length = 0;

  constructor(
    private readonly out: ReturnType<typeof pino.destination>,
    private readonly batchLength = LOG_BATCH_CHARACTERS,
    flushIntervalMs = LOG_FLUSH_INTERVAL_MS,
  ) {
    setInterval(() => this.flush(), flushIntervalMs).unref();
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#length += line.length;
    if (this.#length >= this.batchLength) this.flush();
  }

  /** Writes what is gathered, now. */
  flush(): void {
    if (this.#lines.length === 0) return;
    const text = this.#lines.length === 1 ? (this.#lines[0] ?? '') : this.#lines.join('');
    this.#lines = [];
    this.#length = 0;
    this.out.write(text);
  }

  flushSync(): void {
    this.flush();
    this.out.flushSync();
  }
}

/** Standard output, written in batches (BatchedLogDestination). */
export function logDestination(): BatchedLogDestination {
  const destination = new BatchedLogDestination(pino.destination({ dest: 1, sync: true }));
  process.once('exit', () => destination.flushSync());
  return destination;
}
