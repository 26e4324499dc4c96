import { encodeSite } from './encode.js';
import type { EncodedPage, EncodedSite, SiteCache } from './read-cache.js';
import type { SiteService } from './service.js';

/**
 * The two GETs of sites, answered from the cache when it holds the answer and from the database
 * otherwise; what the database gives is encoded once and remembered (see read-cache.ts for why
 * nothing stale is served).
 */
export class SiteReads {
  constructor(
    private readonly sites: SiteService,
    private readonly cache: SiteCache,
  ) {}

  async page(userId: string, limit: number, cursor: string | undefined): Promise<EncodedPage> {
    const key = pageKey(limit, cursor);
    const cached = this.cache.page(userId, key);
    if (cached !== undefined) return cached;
    const ticket = this.cache.readStarted();
    const page = await this.sites.list(userId, limit, cursor);
    const encoded: EncodedPage = { sites: page.sites.map(encodeSite), nextCursor: page.nextCursor };
    this.cache.rememberPage(userId, key, encoded, ticket);
    return encoded;
  }

  /** The page as `page` would answer it, if the cache holds it; never reads the database. */
  heldPage(userId: string, limit: number, cursor: string | undefined): EncodedPage | undefined {
    return this.cache.page(userId, pageKey(limit, cursor));
  }

  /** The site as `site` would answer it, if the cache holds it; never reads the database. */
  heldSite(userId: string, id: string): EncodedSite | undefined {
    return this.cache.site(userId, id);
  }

  async site(userId: string, id: string): Promise<EncodedSite> {
    const cached = this.cache.site(userId, id);
    if (cached !== undefined) return cached;
    const ticket = this.cache.readStarted();
    const encoded = encodeSite(await this.sites.get(userId, id));
    this.cache.rememberSite(userId, encoded, ticket);
    return encoded;
  }
}

function pageKey(limit: number, cursor: string | undefined): string {
  return cursor === undefined ? `${limit}` : `${limit} ${cursor}`;
}
