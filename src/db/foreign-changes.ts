/**
 * The database's change counter (DatabaseHandle.foreignChanges), read at most once per request
 * that arrives. Reading SQLite's data_version takes a read transaction, two lock calls to the
 * kernel, about 6 µs under load; the principal cache and the site cache both ask on every request.
 *
 * Why a value read after the latest arrival is good enough for every request in flight: a commit
 * a client can know of before sending its request (another server's answer to a write, say)
 * happened before the request arrived, so a value read after the arrival reflects it. A value read
 * before an arrival may predate such a commit; each arrival therefore forgets the value.
 */
export class ForeignChanges {
  #value: number | undefined;

  constructor(private readonly read: () => number) {}

  /** Called as each request arrives, before anything reads `current`. */
  requestArrived(): void {
    this.#value = undefined;
  }

  current(): number {
    this.#value ??= this.read();
    return this.#value;
  }
}
