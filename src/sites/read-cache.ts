import { SecondChance } from '../lib/second-chance.js';

/**
 * A site as GET answers show it, already encoded: the JSON bytes of its object in the response
 * (see encode.ts), and its version, which is the ETag.
 */
export interface EncodedSite {
  readonly id: string;
  readonly version: number;
  readonly json: Buffer;
}

/** One page of the sites list, encoded. */
export interface EncodedPage {
  readonly sites: readonly EncodedSite[];
  readonly nextCursor: string | null;
}

/** Taken before a database read whose result may be remembered. */
export interface SiteReadTicket {
  readonly writes: number;
}

/**
 * A number that moves whenever another connection or process commits to the database, and that
 * this process's own commits leave alone: SQLite's `PRAGMA data_version`. Read before every
 * lookup, so it must cost next to nothing.
 */
export type ForeignChangeCounter = () => number;

export interface SiteCacheOptions {
  /** Null where the database offers no such counter (PostgreSQL): the cache is then off. */
  foreignChanges: ForeignChangeCounter | null;
  /** Upper bound on what the cache holds, in bytes of JSON plus a per-entry allowance; 0 turns it off. */
  maxBytes: number;
}

/** Pages remembered per user (different limits and cursors); past it the oldest is dropped. */
export const PAGES_PER_USER = 8;

/**
 * Users whose read found the cache full and was not stored, remembered by id so that their next
 * read is (second-chance admission; see #admits). About 100 bytes each.
 */
export const ADMISSION_CANDIDATES = 4096;

/** Allowance per remembered site and page for what is not JSON bytes: the objects, the keys. */
const SITE_OVERHEAD_BYTES = 160;
const PAGE_OVERHEAD_BYTES = 120;
const USER_OVERHEAD_BYTES = 200;

interface CachedPage {
  ids: readonly string[];
  nextCursor: string | null;
  bytes: number;
}

interface UserSites {
  sites: Map<string, EncodedSite>;
  pages: Map<string, CachedPage>;
  bytes: number;
  /** The write counter when this process last changed one of the user's sites. */
  lastWrite: number;
}

/**
 * What GET /api/v1/sites and GET /api/v1/sites/{id} answered, kept per user as encoded JSON, so
 * that a repeated read touches neither the database nor the serialiser. Per app instance, never
 * module-level.
 *
 * Nothing stale is ever served, in this process or after a write by another one:
 * - Every write this process makes to a site (create, update, delete, a partner check) is
 *   reported after it commits and before its answer is sent (siteChanged, sitesAddedOrRemoved),
 *   and drops what it affects. The writer reads its own write at once.
 * - Any commit by another connection (another app process, the command line) moves the
 *   database's change counter, which is read before every lookup; when it has moved, everything
 *   is dropped. Where there is no counter (PostgreSQL) the cache stays empty.
 * - A read that was running when a write was reported, or when everything was dropped, may not
 *   store what it read (readStarted, then remember*): it may have read the row before the write.
 *
 * Bounded by maxBytes: past it, the users used longest ago are dropped whole. Once full, a user
 * not held is only let in at their second read in a while: a pass over more users than fit (a
 * crawler, a client paging through every account, the benchmark's rotation) would otherwise drop
 * each entry before its next use, so that the cache answered nothing and only cost the work of
 * storing and dropping. Measured at 100,000 sites, plain LRU served the list at 4.3k requests/s,
 * below the code with no cache at all (docs/performance.md, "Growth").
 */
export class SiteCache {
  readonly #users = new Map<string, UserSites>();
  readonly #foreignChanges: ForeignChangeCounter | null;
  readonly #maxBytes: number;
  #seenForeign: number;
  #bytes = 0;
  /** Moves on at every write reported and at every clear. */
  #writes = 0;
  /** The write counter when an entry was last dropped whole: what it knew of writes is gone. */
  #droppedAt = 0;
  /** Who may come in once full (see ADMISSION_CANDIDATES). */
  readonly #admission = new SecondChance(ADMISSION_CANDIDATES);

  constructor(options: SiteCacheOptions) {
    this.#maxBytes = options.maxBytes;
    this.#foreignChanges = options.maxBytes > 0 ? options.foreignChanges : null;
    this.#seenForeign = this.#foreignChanges?.() ?? 0;
  }

  get enabled(): boolean {
    return this.#foreignChanges !== null;
  }

  /** Bytes held, by the same measure as maxBytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A page of the user's sites, if every site on it is held. */
  page(userId: string, key: string): EncodedPage | undefined {
    const user = this.#lookup(userId);
    const page = user?.pages.get(key);
    if (user === undefined || page === undefined) return undefined;
    const sites: EncodedSite[] = [];
    for (const id of page.ids) {
      const site = user.sites.get(id);
      if (site === undefined) return undefined;
      sites.push(site);
    }
    return { sites, nextCursor: page.nextCursor };
  }

  /** One of the user's sites. Another user's site id finds nothing: sites are held per owner. */
  site(userId: string, id: string): EncodedSite | undefined {
    return this.#lookup(userId)?.sites.get(id);
  }

  readStarted(): SiteReadTicket {
    return { writes: this.#writes };
  }

  rememberPage(userId: string, key: string, page: EncodedPage, ticket: SiteReadTicket): void {
    const bytes = PAGE_OVERHEAD_BYTES + key.length + page.sites.length * 40;
    const user = this.#writable(userId, ticket, page.sites.reduce((sum, site) => sum + siteBytes(site), bytes));
    if (user === undefined) return;
    for (const site of page.sites) this.#put(user, site);
    const old = user.pages.get(key);
    if (old !== undefined) this.#dropPage(user, key, old);
    if (user.pages.size >= PAGES_PER_USER) {
      const [oldestKey, oldest] = user.pages.entries().next().value ?? [];
      if (oldestKey !== undefined && oldest !== undefined) this.#dropPage(user, oldestKey, oldest);
    }
    const ids = page.sites.map((site) => site.id);
    user.pages.set(key, { ids, nextCursor: page.nextCursor, bytes });
    this.#grow(user, bytes);
    this.#shrink();
  }

  rememberSite(userId: string, site: EncodedSite, ticket: SiteReadTicket): void {
    const user = this.#writable(userId, ticket, siteBytes(site));
    if (user === undefined) return;
    this.#put(user, site);
    this.#shrink();
  }

  /** A site's content changed (committed): its pages still list the same ids. */
  siteChanged(userId: string, id: string): void {
    const user = this.#written(userId);
    if (user === undefined) return;
    const site = user.sites.get(id);
    if (site !== undefined) this.#dropSite(user, site);
  }

  /** A site was created or deleted (committed): every page of the user may have changed. */
  sitesAddedOrRemoved(userId: string, removedId?: string): void {
    const user = this.#written(userId);
    if (user === undefined) return;
    for (const [key, page] of user.pages) this.#dropPage(user, key, page);
    const removed = removedId === undefined ? undefined : user.sites.get(removedId);
    if (removed !== undefined) this.#dropSite(user, removed);
  }

  /** Drops everything, and refuses what reads already running would store. */
  clear(): void {
    this.#writes++;
    this.#droppedAt = this.#writes;
    this.#users.clear();
    this.#bytes = 0;
  }

  #lookup(userId: string): UserSites | undefined {
    if (this.#foreignChanges === null) return undefined;
    const foreign = this.#foreignChanges();
    if (foreign !== this.#seenForeign) {
      this.#seenForeign = foreign;
      this.clear();
      return undefined;
    }
    const user = this.#users.get(userId);
    if (user !== undefined) {
      // Map keeps insertion order: re-inserted, the user becomes the last to be dropped.
      this.#users.delete(userId);
      this.#users.set(userId, user);
    }
    return user;
  }

  /**
   * The user's entry, made if need be, when a read with this ticket may still store `bytes` into
   * it: nothing was written to the user since the read began, and a user not held is admitted.
   */
  #writable(userId: string, ticket: SiteReadTicket, bytes: number): UserSites | undefined {
    if (this.#foreignChanges === null) return undefined;
    const user = this.#users.get(userId);
    if (user !== undefined) return user.lastWrite <= ticket.writes ? user : undefined;
    if (this.#droppedAt > ticket.writes) return undefined;
    if (!this.#admits(userId, USER_OVERHEAD_BYTES + userId.length + bytes)) return undefined;
    return this.#create(userId);
  }

  /**
   * Whether a user not held may come in: always while there is room, otherwise only when the
   * same user was refused not long ago (among the last ADMISSION_CANDIDATES refused). A user who
   * keeps coming back is let in at the second read, and the users used longest ago make room; a
   * pass over many users, each read once, leaves what is held alone.
   */
  #admits(userId: string, bytes: number): boolean {
    return this.#bytes + bytes <= this.#maxBytes || this.#admission.admits(userId);
  }

  /** Records a write to the user's sites; the entry is kept (made if need be) to remember it. */
  #written(userId: string): UserSites | undefined {
    if (this.#foreignChanges === null) return undefined;
    this.#writes++;
    const user = this.#users.get(userId) ?? this.#create(userId);
    user.lastWrite = this.#writes;
    this.#shrink(user);
    return user;
  }

  #create(userId: string): UserSites {
    const user: UserSites = { sites: new Map(), pages: new Map(), bytes: 0, lastWrite: 0 };
    this.#users.set(userId, user);
    this.#grow(user, USER_OVERHEAD_BYTES + userId.length);
    return user;
  }

  #put(user: UserSites, site: EncodedSite): void {
    const old = user.sites.get(site.id);
    if (old !== undefined) this.#dropSite(user, old);
    user.sites.set(site.id, site);
    this.#grow(user, siteBytes(site));
  }

  #dropSite(user: UserSites, site: EncodedSite): void {
    user.sites.delete(site.id);
    this.#grow(user, -siteBytes(site));
  }

  #dropPage(user: UserSites, key: string, page: CachedPage): void {
    user.pages.delete(key);
    this.#grow(user, -page.bytes);
  }

  #grow(user: UserSites, bytes: number): void {
    user.bytes += bytes;
    this.#bytes += bytes;
  }

  /** Drops the users used longest ago until the cache fits; `keep` is never dropped. */
  #shrink(keep?: UserSites): void {
    for (const [userId, user] of this.#users) {
      if (this.#bytes <= this.#maxBytes) return;
      if (user === keep) continue;
      this.#users.delete(userId);
      this.#bytes -= user.bytes;
      this.#droppedAt = this.#writes;
    }
  }
}

function siteBytes(site: EncodedSite): number {
  return SITE_OVERHEAD_BYTES + site.id.length + site.json.length;
}
