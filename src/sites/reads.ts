import { bufferCost, type Cache, type CacheNamespace } from '../cache/cache.js';
import { membershipsTag, siteTag, workspaceSitesTag } from '../cache/change-feed.js';
import { chargeCopiesTo, copyChargeCost } from '../http/compression.js';
import { assertTwoFactorMet } from '../memberships/permissions.js';
import type { SiteListFields } from './contract.js';
import type { SiteListOrder } from './list-cursor.js';
import { encodeSiteEnvelope, encodeSiteList, encodeSummaryList } from './presenter.js';
import type { SiteCaller } from './queries.js';
import type { SiteService } from './service.js';

/** A list request other than the default: another order, a search, or the summary fields. */
export interface SiteListRequest extends SiteListOrder {
  /** Only this workspace's sites; undefined for every workspace the caller is in. */
  readonly workspaceId: string | undefined;
  readonly limit: number;
  readonly cursor: string | undefined;
  readonly fields: SiteListFields | undefined;
}

/** The body of GET /api/v1/sites/{id}, the site's version, which is its ETag, and its workspace. */
export interface SiteAnswer {
  readonly version: number;
  readonly body: Buffer;
  readonly workspaceId: string;
}

/** A kept site answer's object and its workspace id's string, besides its body (bench/cache-memory.ts). */
const ANSWER_OBJECT_BYTES = 100;

/** What a kept body costs the cache when stored; its compressed copies are charged as they are made (chargeCopiesTo). */
function servedBodyCost(body: Buffer): number {
  return bufferCost(body) + copyChargeCost(body);
}

/** What a kept site answer costs the cache (StoreOptions.size). */
export function siteAnswerCost(answer: SiteAnswer): number {
  return ANSWER_OBJECT_BYTES + servedBodyCost(answer.body);
}

/**
 * The two GETs of sites, answered from the cache (src/cache/cache.ts) when it holds the answer and
 * from the database otherwise. What the database gives is encoded once and kept as the response
 * bytes, so a repeated read touches neither the database nor the serialiser. Keys start with the
 * caller's user id (and the workspace their credential is limited to, if any: such a token must
 * not be answered what its user was), and every entry depends on the caller's memberships: a site of a workspace
 * they are not in finds nothing (404, as from the database), and one they were removed from, or
 * joined, is read afresh.
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

  async page(caller: SiteCaller, workspaceId: string | undefined, limit: number, cursor: string | undefined): Promise<Buffer> {
    // A caller shut out of a workspace for want of a second factor is answered from the database,
    // under no key another answer of theirs could share.
    if (caller.twoFactorMissingIn.size > 0) {
      const page = await this.sites.list(caller, workspaceId, limit, cursor);
      return encodeSiteList(page.sites, page.nextCursor);
    }
    const key = pageKey(caller, workspaceId, limit, cursor);
    const held = this.#pages.get(key);
    if (held !== undefined) return held;
    const epoch = this.cache.epoch;
    const tags = await this.#listTags(caller, workspaceId);
    const page = await this.sites.list(caller, workspaceId, limit, cursor);
    const body = encodeSiteList(page.sites, page.nextCursor);
    this.#pages.set(key, body, { tags, size: servedBodyCost(body), epoch });
    chargeCopiesTo(body, (bytes) => this.#pages.grow(key, body, bytes));
    return body;
  }

  /**
   * What a list depends on: the caller's memberships (a workspace joined or left changes which
   * sites it shows) and any change to a site of the workspaces it shows (one created, changed or
   * deleted). The workspaces are read in the same epoch as the page: a membership that changes in
   * between moves the epoch, and the page is then not kept.
   */
  async #listTags(caller: SiteCaller, workspaceId: string | undefined): Promise<string[]> {
    const workspaceIds = workspaceId === undefined ? await this.sites.workspaceIdsOf(caller) : [workspaceId];
    return [membershipsTag(caller.userId), ...workspaceIds.map(workspaceSitesTag)];
  }

  /**
   * The other lists, kept under the same rule as the default pages: any change to any site they
   * could show drops them all, so a search or another order never shows a stale row or total.
   */
  async list(caller: SiteCaller, request: SiteListRequest): Promise<Buffer> {
    if (caller.twoFactorMissingIn.size > 0) return this.#readList(caller, request);
    const key = JSON.stringify([callerKey(caller), request.workspaceId ?? null, request.limit, request.cursor ?? null, request.sort, request.q, request.fields ?? null]);
    const held = this.#lists.get(key);
    if (held !== undefined) return held;
    const epoch = this.cache.epoch;
    const tags = await this.#listTags(caller, request.workspaceId);
    const body = await this.#readList(caller, request);
    this.#lists.set(key, body, { tags, size: servedBodyCost(body), epoch });
    chargeCopiesTo(body, (bytes) => this.#lists.grow(key, body, bytes));
    return body;
  }

  async #readList(caller: SiteCaller, request: SiteListRequest): Promise<Buffer> {
    const page = await this.sites.listOrdered(caller, request.workspaceId, request, request.limit, request.cursor);
    return request.fields === 'summary'
      ? encodeSummaryList(page.sites, page.nextCursor, await this.sites.count(caller, request.workspaceId, request.q))
      : encodeSiteList(page.sites, page.nextCursor);
  }

  /** A site the caller may read; a kept answer is checked against the caller's second factor as a fresh one is. */
  async site(caller: SiteCaller, id: string): Promise<SiteAnswer> {
    const key = `${callerKey(caller)} ${id}`;
    const held = this.#sites.get(key);
    if (held !== undefined) {
      assertTwoFactorMet(caller.twoFactorMissingIn, held.workspaceId);
      return held;
    }
    const epoch = this.cache.epoch;
    const row = await this.sites.get(caller, id);
    const answer: SiteAnswer = { version: row.version, body: encodeSiteEnvelope(row), workspaceId: row.workspace_id };
    this.#sites.set(key, answer, { tags: [siteTag(id), membershipsTag(caller.userId)], size: siteAnswerCost(answer), epoch });
    chargeCopiesTo(answer.body, (bytes) => this.#sites.grow(key, answer, bytes));
    return answer;
  }
}

/** The user, and the workspace their credential is limited to; no id holds "@" or "/". */
function callerKey(caller: SiteCaller): string {
  return caller.workspaceId === null ? caller.userId : `${caller.userId}@${caller.workspaceId}`;
}

function pageKey(caller: SiteCaller, workspaceId: string | undefined, limit: number, cursor: string | undefined): string {
  // A filtered key cannot equal an unfiltered one: the filter follows a slash.
  const scope = workspaceId === undefined ? callerKey(caller) : `${callerKey(caller)}/${workspaceId}`;
  return cursor === undefined ? `${scope} ${limit}` : `${scope} ${limit} ${cursor}`;
}
