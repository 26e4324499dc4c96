import type { Cache, CacheNamespace } from '../cache/cache.js';
import { ownerSitesTag, siteTag } from './changes.js';
import type { SiteListFields } from './contract.js';
import { encodeSite, encodeSiteEnvelope, encodeSiteList } from './encode.js';
import type { SiteListOrder } from './list-cursor.js';
import type { SiteService } from './service.js';
import { encodeSummaryList } from './summary.js';

/** A list request other than the default: another order, a search, or the summary fields. */
export interface SiteListRequest extends SiteListOrder {
  readonly limit: number;
  readonly cursor: string | undefined;
  readonly fields: SiteListFields | undefined;
}

/** The body of GET /api/v1/sites/{id} and the site's version, which is its ETag. */
export interface SiteAnswer {
  readonly version: number;
  readonly body: Buffer;
}

/**
 * The two GETs of sites, answered from the cache (src/cache/cache.ts) when it holds the answer and
 * from the database otherwise. What the database gives is encoded once and kept as the response
 * bytes, so a repeated read touches neither the database nor the serialiser. Keys start with the
 * caller's user id: another user's site id finds nothing (404, as from the database).
 */
export class SiteReads {
  readonly #pages: CacheNamespace<Buffer>;
  readonly #lists: CacheNamespace<Buffer>;
  readonly #sites: CacheNamespace<SiteAnswer>;

  constructor(
    private readonly sites: SiteService,
    private readonly cache: Cache,
  ) {
    this.#pages = cache.namespace('sites-page');
    this.#lists = cache.namespace('sites-list');
    this.#sites = cache.namespace('site');
  }

  async page(userId: string, limit: number, cursor: string | undefined): Promise<Buffer> {
    const key = pageKey(userId, limit, cursor);
    const held = this.#pages.get(key);
    if (held !== undefined) return held;
    const epoch = this.cache.epoch;
    const page = await this.sites.list(userId, limit, cursor);
    const body = encodeSiteList({ sites: page.sites.map(encodeSite), nextCursor: page.nextCursor });
    // Any change to any of the owner's sites (one created, changed or deleted) may change a page.
    this.#pages.set(key, body, { tags: [ownerSitesTag(userId)], size: body.length, epoch });
    return body;
  }

  /**
   * The other lists, kept under the same rule as the default pages: any change to any of the
   * owner's sites drops them all, so a search or another order never shows a stale row or total.
   */
  async list(userId: string, request: SiteListRequest): Promise<Buffer> {
    const key = JSON.stringify([userId, request.limit, request.cursor ?? null, request.sort, request.q, request.fields ?? null]);
    const held = this.#lists.get(key);
    if (held !== undefined) return held;
    const epoch = this.cache.epoch;
    const page = await this.sites.listOrdered(userId, request, request.limit, request.cursor);
    const body =
      request.fields === 'summary'
        ? encodeSummaryList(page.sites, page.nextCursor, await this.sites.count(userId, request.q))
        : encodeSiteList({ sites: page.sites.map(encodeSite), nextCursor: page.nextCursor });
    this.#lists.set(key, body, { tags: [ownerSitesTag(userId)], size: body.length, epoch });
    return body;
  }

  async site(userId: string, id: string): Promise<SiteAnswer> {
    const key = `${userId} ${id}`;
    const held = this.#sites.get(key);
    if (held !== undefined) return held;
    const epoch = this.cache.epoch;
    const site = encodeSite(await this.sites.get(userId, id));
    const answer: SiteAnswer = { version: site.version, body: encodeSiteEnvelope(site) };
    this.#sites.set(key, answer, { tags: [siteTag(id)], size: answer.body.length, epoch });
    return answer;
  }
}

function pageKey(userId: string, limit: number, cursor: string | undefined): string {
  return cursor === undefined ? `${userId} ${limit}` : `${userId} ${limit} ${cursor}`;
}
