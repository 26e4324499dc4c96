import type { FastifyBaseLogger } from 'fastify';

/** Distinct client addresses and URLs counted between two writes; past it, what is counted is written at once. */
const PENDING_LIMIT = 10_000;

/**
 * The request lines of the answers the public fast path gives (fast-path.ts), summed: each
 * interval, one line per client address and URL, `public configurations served`, with how many
 * answers of each method and status it was given. The fast path answers only 200 and 304, from
 * the cache; every other answer of the public path (a 404, a 400, a 429, an error, a cold cache)
 * goes through Fastify and gets its own request line. A line per request was the largest part
 * of what the app adds to such an answer (docs/performance.md); docs/decisions.md says what the
 * log keeps.
 */
export class ServedConfigurations {
  /** Client address → URL → `METHOD status` → answers. */
  #pending = new Map<string, Map<string, Map<string, number>>>();
  #pairs = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly lines: FastifyBaseLogger,
    intervalMs: number,
  ) {
    this.#timer = setInterval(() => this.flush(), intervalMs).unref();
  }

  count(ip: string, method: string, url: string, status: number): void {
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
      answers = new Map();
      byUrl.set(url, answers);
      this.#pairs++;
    }
    const kind = `${method} ${status}`;
    answers.set(kind, (answers.get(kind) ?? 0) + 1);
  }

  /** Writes what was counted since the last write. */
  flush(): void {
    const pending = this.#pending;
    if (pending.size === 0) return;
    this.#pending = new Map();
    this.#pairs = 0;
    for (const [ip, byUrl] of pending) {
      for (const [url, answers] of byUrl) this.lines.info({ ip, url, answers: Object.fromEntries(answers) }, 'public configurations served');
    }
  }

  /** Stops the timer and writes what is left. */
  close(): void {
    clearInterval(this.#timer);
    this.flush();
  }
}
