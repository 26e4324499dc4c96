import type { RequestLines } from '../http/request-log.js';

/** Distinct client addresses and URLs counted between two writes; past it, what is counted is written at once. */
const PENDING_LIMIT = 10_000;
/** Lines written per turn of the event loop: a second's lines are written between answers, not as one block of them. */
const LINES_PER_TURN = 200;

/** What the fast path answers: a GET or a HEAD, with the document (200) or without it (304). */
export type ServedMethod = 'GET' | 'HEAD';
export type ServedStatus = 200 | 304;

/** The kinds of answer, in the order of a pair's counts and of its line's `answers`. */
const KINDS = ['GET 200', 'GET 304', 'HEAD 200', 'HEAD 304'] as const;

/**
 * The request lines of the answers the public fast path gives (fast-path.ts), summed: each
 * interval, one line per client address and URL, `public configurations served`, with how many
 * answers of each method and status it was given. The fast path answers only 200 and 304, from
 * the cache; every other answer of the public path (a 404, a 400, a 429, an error, a cold cache)
 * goes through Fastify and gets its own request line. A line per request was the largest part
 * of what the app adds to such an answer (docs/decisions/delivery-summed-served-log.md, which
 * also says what the log keeps).
 *
 * Counting an answer allocates nothing once its pair is known. An interval's lines, one per
 * pair (as many as answers when every visitor asks once), are written a few hundred per turn of
 * the event loop, so answers go on between them.
 */
export class ServedConfigurations {
  /** Client address → URL → answers of each kind, indexed as KINDS. */
  #pending = new Map<string, Map<string, number[]>>();
  #pairs = 0;
  /** Lines of an earlier interval not yet written. */
  #backlog: Iterator<void> | undefined;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly lines: RequestLines,
    intervalMs: number,
  ) {
    this.#timer = setInterval(() => this.flush(), intervalMs).unref();
  }

  count(ip: string, method: ServedMethod, url: string, status: ServedStatus): void {
    let byUrl = this.#pending.get(ip);
    if (byUrl === undefined) {
      byUrl = new Map();
      this.#pending.set(ip, byUrl);
    }
    let answers = byUrl.get(url);
    if (answers === undefined) {
      if (this.#pairs >= PENDING_LIMIT) {
        this.flush();
        this.count(ip, method, url, status);
        return;
      }
      answers = [0, 0, 0, 0];
      byUrl.set(url, answers);
      this.#pairs++;
    }
    const kind = (method === 'HEAD' ? 2 : 0) + (status === 304 ? 1 : 0);
    answers[kind] = (answers[kind] ?? 0) + 1;
  }

  /** Starts writing what was counted since the last write; the lines follow over the next turns. */
  flush(): void {
    if (this.#pending.size === 0) return;
    // An earlier interval's lines go first, in full: the log keeps its order.
    this.#writeBacklog(Number.POSITIVE_INFINITY);
    const pending = this.#pending;
    this.#pending = new Map();
    this.#pairs = 0;
    this.#backlog = summedLines(this.lines, pending);
    this.#writeBacklog(LINES_PER_TURN);
  }

  /** Stops the timer and writes what is left, now. */
  close(): void {
    clearInterval(this.#timer);
    this.flush();
    this.#writeBacklog(Number.POSITIVE_INFINITY);
  }

  #writeBacklog(limit: number): void {
    const backlog = this.#backlog;
    if (backlog === undefined) return;
    for (let written = 0; written < limit; written++) {
      if (backlog.next().done === true) {
        this.#backlog = undefined;
        return;
      }
    }
    setImmediate(() => {
      if (this.#backlog === backlog) this.#writeBacklog(LINES_PER_TURN);
    });
  }
}

/** Writes one line per pair as it is iterated: each step writes one. */
function* summedLines(lines: RequestLines, pending: Map<string, Map<string, number[]>>): Generator<void, void, undefined> {
  for (const [ip, byUrl] of pending) {
    for (const [url, answers] of byUrl) {
      let json = '';
      for (let kind = 0; kind < KINDS.length; kind++) {
        const count = answers[kind] ?? 0;
        if (count > 0) json += `${json === '' ? '{' : ','}"${KINDS[kind]}":${count}`;
      }
      lines.writeSummed(ip, url, `${json}}`);
      yield;
    }
  }
}
