import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { touchAccessToken } from './queries.js';

/**
 * Writes access tokens' last-use times (at most once a minute per token, the guard decides when),
 * gathered for one turn of the event loop and written together in one transaction. Under load
 * many tokens fall due at once, and one commit for all of them costs about what one commit for
 * each did; a request answered from memory need not wait for the write at all.
 *
 * A failed write is reported to `onError` and the times are kept for the next write, unless a
 * later time for the same token replaced them; recording never fails a request.
 */
export class LastUseRecorder {
  /** Token id → when it was used (ISO 8601), not yet written. */
  readonly #pending = new Map<string, string>();
  /** The write the next records join; undefined until one is recorded. */
  #next: Promise<void> | undefined;
  /** Settles when every write begun so far has finished: writes run one after another. */
  #settled: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Records that the token was used at `usedAt`. The promise settles, never rejecting, once the
   * write that carries it has finished: await it to answer only after the record is stored.
   */
  record(tokenId: string, usedAt: string): Promise<void> {
    this.#pending.set(tokenId, usedAt);
    if (this.#next === undefined) {
      const next = this.#settled.then(nextTurn).then(() => this.#writePending());
      this.#next = next;
      this.#settled = next;
    }
    return this.#next;
  }

  /** Writes whatever is still pending; for shutdown, before the database closes. */
  async close(): Promise<void> {
    await this.#settled;
    if (this.#pending.size > 0) await this.#writePending();
  }

  async #writePending(): Promise<void> {
    // Records from here on join the next write.
    this.#next = undefined;
    const batch = [...this.#pending];
    this.#pending.clear();
    if (batch.length === 0) return;
    try {
      if (batch.length === 1) {
        const [[tokenId, usedAt]] = batch as [[string, string]];
        await touchAccessToken(this.db, tokenId, usedAt);
      } else {
        await this.db.transaction().execute(async (trx) => {
          for (const [tokenId, usedAt] of batch) await touchAccessToken(trx, tokenId, usedAt);
        });
      }
    } catch (error) {
      for (const [tokenId, usedAt] of batch) {
        if (!this.#pending.has(tokenId)) this.#pending.set(tokenId, usedAt);
      }
      this.onError(error);
    }
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
