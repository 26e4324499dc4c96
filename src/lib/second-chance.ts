import { dropOldest } from './insertion-order.js';

/**
 * Second-chance admission, for a cache that is full: a key it does not hold is let in only when
 * the same key was refused not long ago (among the last `remembered` refused). A key that keeps
 * coming back gets in at its second try; a pass over more keys than fit, each used once, leaves
 * what is held alone. Plain eviction under such a pass drops every entry before its next use, so
 * that the cache answers nothing and only pays for storing and dropping (docs/performance.md,
 * "Growth").
 */
export class SecondChance {
  /** Keys refused, oldest first. */
  readonly #refused = new Set<string>();

  constructor(private readonly remembered: number) {}

  /** Whether a key not held may come in now; a key refused is remembered for its next try. */
  admits(key: string): boolean {
    if (this.#refused.delete(key)) return true;
    this.#refused.add(key);
    dropOldest(this.#refused, this.remembered);
    return false;
  }

  /** Keys remembered as refused, for the test of the bound. */
  get size(): number {
    return this.#refused.size;
  }
}
