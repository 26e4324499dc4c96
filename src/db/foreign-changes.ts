/**
 * The database's change counter (DatabaseHandle.foreignChanges), read at most once per turn of
 * the event loop. Reading SQLite's data_version takes a read transaction, four lock calls to the
 * kernel, about 6 µs under load; the principal cache and the site cache both ask on every request,
 * and a loaded server reads dozens of requests in one turn.
 *
 * The bound this gives: a request is answered from a counter read during the turn in which the
 * request was read from its socket (a counter read in an earlier turn was forgotten when that
 * turn ended). So a commit by another process is seen by every request read in a later turn; a
 * request read in the same turn may, at most, miss a commit made while that turn ran (well under a
 * millisecond at rest, a few milliseconds under full load). Revocations made on this process do not
 * depend on it: they are forgotten by the caches directly (docs/security.md).
 */
export class ForeignChanges {
  #value: number | undefined;
  readonly #forget = (): void => {
    this.#value = undefined;
  };

  constructor(private readonly read: () => number) {}

  current(): number {
    if (this.#value === undefined) {
      this.#value = this.read();
      // Immediates run at the end of the turn, after every socket read in it was handled.
      setImmediate(this.#forget);
    }
    return this.#value;
  }
}
