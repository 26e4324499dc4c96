/**
 * Runs at most `size` pieces of work at once; the rest wait their turn, first come first served.
 * For work whose cost grows with how much of it runs together (memory-hard hashing).
 */
export class WorkSlots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`WorkSlots needs a whole number of slots, at least 1 (got ${size})`);
    this.#free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) {
      this.#free--;
    } else {
      // The slot is handed over by the finishing work, so a newcomer cannot take it first.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#free++;
      else next();
    }
  }

  /** Work waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }
}
