import { dropOldest } from '../lib/insertion-order.js';
import { SecondChance } from '../lib/second-chance.js';
import type { Principal } from './guard.js';

/**
 * How long a process may go on trusting what it read about a credential, where the database has
 * no change counter (PostgreSQL). A JWT or a personal access token revoked on another app process
 * (sign out everywhere, a password change, a deleted token) is refused here at most this long
 * after the revocation committed. The process that revokes forgets the entries at once, so there
 * the next request is refused. On SQLite the change counter makes it "from the next turn of the
 * event loop" on every process (db/foreign-changes.ts). Stated in docs/security.md; test/multi-server.test.ts proves both across two
 * processes.
 */
export const PRINCIPAL_CACHE_TTL_MS = 1000;

/**
 * With a change counter (SQLite's data_version, see PrincipalCacheOptions.foreignChanges) a
 * revocation on another process empties the cache from this process's next turn, so the bound
 * above does not apply; entries still expire after this long, a safety net for a write in this
 * process that forgot to report a revocation.
 */
export const PRINCIPAL_CACHE_TTL_WITH_CHANGE_COUNTER_MS = 60_000;

/**
 * Entries per kind of credential; past it the oldest are dropped, so memory stays bounded. Once
 * full, a credential not held comes in at its second read among the last
 * PRINCIPAL_ADMISSION_CANDIDATES refused (lib/second-chance.ts).
 */
export const PRINCIPAL_CACHE_MAX_ENTRIES = 10_000;
export const PRINCIPAL_ADMISSION_CANDIDATES = 4096;

interface Entry<Value> {
  value: Value;
  userId: string;
  /** Monotonic milliseconds after which the entry is not used. */
  expiresAt: number;
}

/** Entries of one kind, and who may come in once they are full. */
interface Held<Value> {
  entries: Map<string, Entry<Value>>;
  admission: SecondChance;
}

/** A personal access token's principal, with when its use was last recorded (last_used_at). */
export interface CachedAccessToken {
  id: string;
  principal: Principal;
  /** Epoch milliseconds by the app's clock; the guard records use at most once a minute. */
  lastUsedMs: number;
}

export interface PrincipalCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  /**
   * Monotonic milliseconds. Real elapsed time, not the injected business clock: the bound is a
   * promise about wall time between processes, and a test clock that stands still must not make
   * an entry live forever.
   */
  now?: () => number;
  /**
   * A number that moves whenever another connection commits to the database (see
   * DatabaseHandle.foreignChanges). Given, everything is dropped when it has moved, which makes
   * revocation on other processes take effect as soon as it is seen, and the default lifetime is
   * PRINCIPAL_CACHE_TTL_WITH_CHANGE_COUNTER_MS. Null or left out: PRINCIPAL_CACHE_TTL_MS.
   */
  foreignChanges?: (() => number) | null;
}

/**
 * What a credential resolved to (the user row, and for a personal access token its id and
 * scopes), kept so that an authenticated request does not read the users table every time: for
 * PRINCIPAL_CACHE_TTL_MS, or, with the database's change counter, until another connection
 * commits anything. Per app instance, never module-level: the database stays the only shared state.
 *
 * Only facts that revocation can change are read from here, and every revocation this process
 * carries out drops what it affects (forgetUser, forgetAccessToken) after it has committed. A read
 * that was already running when a revocation happened could return the old row after the entries
 * were dropped; `readStarted`/`remember*` refuse to store such a row, so it cannot bring a revoked
 * credential back.
 *
 * Web sessions are not cached: a session cookie is checked against the database on every request,
 * so signing out ends a session everywhere at once.
 */
export class PrincipalCache {
  readonly #users: Held<Principal> = { entries: new Map(), admission: new SecondChance(PRINCIPAL_ADMISSION_CANDIDATES) };
  readonly #accessTokens: Held<CachedAccessToken> = { entries: new Map(), admission: new SecondChance(PRINCIPAL_ADMISSION_CANDIDATES) };
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #foreignChanges: (() => number) | null;
  #seenForeign: number;
  /** Moves on at every forget; a read that began before it may not be remembered. */
  #revocations = 0;

  constructor(options: PrincipalCacheOptions = {}) {
    this.#foreignChanges = options.foreignChanges ?? null;
    this.#seenForeign = this.#foreignChanges?.() ?? 0;
    this.#ttlMs = options.ttlMs ?? (this.#foreignChanges === null ? PRINCIPAL_CACHE_TTL_MS : PRINCIPAL_CACHE_TTL_WITH_CHANGE_COUNTER_MS);
    this.#maxEntries = options.maxEntries ?? PRINCIPAL_CACHE_MAX_ENTRIES;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Taken before a database read whose result may be remembered. */
  readStarted(): ReadTicket {
    return { revocations: this.#revocations, at: this.#now() };
  }

  /** The principal of a JWT's user (method 'jwt'), while fresh. */
  jwtUser(userId: string): Principal | undefined {
    return this.#fresh(this.#users, userId);
  }

  rememberJwtUser(principal: Principal, ticket: ReadTicket): void {
    this.#remember(this.#users, principal.user.id, principal, principal.user.id, ticket);
  }

  /**
   * A personal access token's principal, by the token's SHA-256 as the database keys it: a dump of
   * the process's memory yields no more usable tokens than a dump of the database.
   */
  accessToken(tokenHash: string): CachedAccessToken | undefined {
    return this.#fresh(this.#accessTokens, tokenHash);
  }

  rememberAccessToken(tokenHash: string, cached: CachedAccessToken, ticket: ReadTicket): void {
    this.#remember(this.#accessTokens, tokenHash, cached, cached.principal.user.id, ticket);
  }

  /** Drops everything read about the user: after sign out everywhere or a password change. */
  forgetUser(userId: string): void {
    this.#revocations++;
    this.#users.entries.delete(userId);
    for (const [key, entry] of this.#accessTokens.entries) {
      if (entry.userId === userId) this.#accessTokens.entries.delete(key);
    }
  }

  /** Drops a personal access token: after it was revoked. */
  forgetAccessToken(accessTokenId: string): void {
    this.#revocations++;
    for (const [key, entry] of this.#accessTokens.entries) {
      if (entry.value.id === accessTokenId) this.#accessTokens.entries.delete(key);
    }
  }

  /** Entries held, for the test of the bound. */
  get size(): number {
    return this.#users.entries.size + this.#accessTokens.entries.size;
  }

  #fresh<Value>({ entries }: Held<Value>, key: string): Value | undefined {
    if (this.#foreignChanges !== null) {
      const foreign = this.#foreignChanges();
      if (foreign !== this.#seenForeign) {
        // Another process committed something; it may have been a revocation.
        this.#seenForeign = foreign;
        this.#revocations++;
        this.#users.entries.clear();
        this.#accessTokens.entries.clear();
        return undefined;
      }
    }
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() >= entry.expiresAt) {
      entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  #remember<Value>({ entries, admission }: Held<Value>, key: string, value: Value, userId: string, ticket: ReadTicket): void {
    if (ticket.revocations !== this.#revocations) return;
    if (!entries.delete(key) && entries.size >= this.#maxEntries && !admission.admits(key)) return;
    // Counted from when the read began, so an entry never outlives the bound measured from its data.
    const expiresAt = ticket.at + this.#ttlMs;
    entries.set(key, { value, userId, expiresAt });
    // Map keeps insertion order and a refreshed entry was re-inserted last: the first is the oldest.
    dropOldest(entries, this.#maxEntries);
  }
}

export interface ReadTicket {
  readonly revocations: number;
  readonly at: number;
}
