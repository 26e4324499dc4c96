import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { Cache } from '../cache/cache.js';
import { membershipsTag, secondFactorTags, siteTag, userTag, workspaceTag } from '../cache/change-feed.js';
import type { Database } from '../db/schema.js';
import { SiteRefresher } from './site-refresher.js';
import type { PublicStreamOptions, StreamLog } from './streams.js';
import { latestSiteVersions, type LatestSiteVersion } from '../sites/queries.js';

export interface SiteEventStreamOptions extends PublicStreamOptions {
  /**
   * A stream ends this long after it opened, and its browser reconnects through the guard again: a
   * signed-out session or a revoked token stops receiving within this time even when no change of
   * the user's rows was announced (web sessions are not cached, so their end is not announced).
   */
  maxAgeMs: number;
}

export const DEFAULT_SITE_EVENT_STREAM_MAX_AGE_MS = 10 * 60_000;

/** Streams one member may hold open on one server: an editor open in a few tabs, not a flood. */
export const SITE_EVENT_STREAMS_PER_USER = 16;

/** One new version of a site, as the stream sends it. */
export interface SiteVersionEvent {
  version: number;
  updated_at: string;
  actor_id: string | null;
  /** The actor's name, or their address when they have no name; null for the command line and the system. */
  actor_name: string | null;
}

const HEARTBEAT = Buffer.from(':\n\n');
const RETRY = Buffer.from('retry: 3000\n\n');

/** Whom a stream was opened for: the tags whose change may take the site away from them end it. */
interface MemberStream {
  readonly response: ServerResponse;
  readonly userId: string;
  readonly openedAt: number;
  readonly endTags: readonly string[];
}

interface Channel {
  version: number;
  event: Buffer;
  workspaceId: string;
  readonly streams: Set<MemberStream>;
}

export function siteVersionEvent(row: LatestSiteVersion): SiteVersionEvent {
  return { version: row.version, updated_at: row.created_at, actor_id: row.actor_id, actor_name: row.actor_name || row.actor_email || null };
}

function encodeEvent(event: SiteVersionEvent): Buffer {
  return Buffer.from(`id: ${event.version}\nevent: version\ndata: ${JSON.stringify(event)}\n\n`);
}

/**
 * The open event streams of signed-in members, one per editor showing a site: each new version of
 * the site (a save, a restore, an applied change request) is sent with who made it. Built as the
 * public streams are (src/delivery/streams.ts): streams of a site share a channel, a change is read
 * once per site and encoded once, two timers serve every stream, and changes arrive through the
 * cache's observers (this process's writes, other processes' through the change feed), polled
 * from the database while the feed cannot vouch for them.
 *
 * A stream was authorised as GET /api/v1/sites/{id} is, once, when it opened. What could take that
 * away ends it, and the browser's reconnection is authorised afresh: a change of the member's
 * memberships, user row or second factors, or of the workspace's own row (its two-factor rule), the
 * site moving to another workspace or the trash, and, for what is never announced, its age.
 */
export class SiteEventStreams {
  readonly #channels = new Map<string, Channel>();
  readonly #perUser = new Map<string, number>();
  readonly #refresher: SiteRefresher;
  #open = 0;
  #closed = false;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #poll: NodeJS.Timeout;
  readonly #stopObserving: () => void;

  constructor(
    private readonly deps: { db: Kysely<Database>; cache: Cache; log: StreamLog; maxStreams: number },
    private readonly options: SiteEventStreamOptions,
  ) {
    this.#refresher = new SiteRefresher(
      { cache: deps.cache, log: deps.log, channels: this.#channels, read: (siteIds) => this.#refreshSites(siteIds), failure: 'reading site versions for their event streams failed; tried again shortly' },
      options,
    );
    this.#stopObserving = deps.cache.observe({
      invalidated: (tags) => this.#invalidated(tags),
      cleared: () => this.#refresher.refreshAll(),
    });
    this.#heartbeat = setInterval(() => this.#beat(), options.heartbeatMs).unref();
    this.#poll = setInterval(() => this.#refresher.poll(), options.pollIntervalMs).unref();
  }

  get size(): number {
    return this.#open;
  }

  /**
   * Takes a place for a stream about to open, within the server's bound and the user's; taken
   * before the site is read, so that requests arriving together cannot all pass a bound.
   */
  reserve(userId: string): 'reserved' | 'server_full' | 'user_full' {
    if (this.#closed || this.#open >= this.deps.maxStreams) return 'server_full';
    const held = this.#perUser.get(userId) ?? 0;
    if (held >= SITE_EVENT_STREAMS_PER_USER) return 'user_full';
    this.#open++;
    this.#perUser.set(userId, held + 1);
    return 'reserved';
  }

  release(userId: string): void {
    this.#open--;
    const held = (this.#perUser.get(userId) ?? 1) - 1;
    if (held <= 0) this.#perUser.delete(userId);
    else this.#perUser.set(userId, held);
  }

  /** The newest version of a site with who made it; undefined when the site is gone. */
  async latest(siteId: string): Promise<LatestSiteVersion | undefined> {
    return (await latestSiteVersions(this.deps.db, [siteId])).get(siteId);
  }

  /**
   * Starts a stream, in a place taken with `reserve`, on a response whose headers the caller has
   * written: the newest version at once, unless the client holds it already (Last-Event-ID), then
   * every newer one.
   */
  open(response: ServerResponse, userId: string, latest: LatestSiteVersion, lastEventId: string | undefined): void {
    if (this.#closed) {
      this.release(userId);
      response.end();
      return;
    }
    const siteId = latest.site_id;
    let channel = this.#channels.get(siteId);
    if (channel === undefined) {
      channel = { version: latest.version, event: encodeEvent(siteVersionEvent(latest)), workspaceId: latest.workspace_id, streams: new Set() };
      this.#channels.set(siteId, channel);
    } else if (latest.version > channel.version) {
      channel.version = latest.version;
      channel.event = encodeEvent(siteVersionEvent(latest));
      channel.workspaceId = latest.workspace_id;
    }
    const stream: MemberStream = {
      response,
      userId,
      openedAt: performance.now(),
      endTags: [
        membershipsTag(userId),
        userTag(userId),
        ...secondFactorTags(userId),
        workspaceTag(latest.workspace_id),
      ],
    };
    channel.streams.add(stream);
    const site = channel;
    response.on('close', () => {
      if (!site.streams.delete(stream)) return;
      this.release(userId);
      if (site.streams.size === 0 && this.#channels.get(siteId) === site) this.#channels.delete(siteId);
    });
    this.#write(stream, RETRY);
    if (lastEventId?.trim() !== String(channel.version)) this.#write(stream, channel.event);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#refresher.stop();
    clearInterval(this.#heartbeat);
    clearInterval(this.#poll);
    this.#stopObserving();
    for (const channel of this.#channels.values()) for (const stream of channel.streams) stream.response.end();
    this.#channels.clear();
  }

  #write(stream: MemberStream, bytes: Buffer): void {
    const response = stream.response;
    if (response.destroyed || response.writableEnded) return;
    response.write(bytes);
    if (response.writableLength > this.options.maxBufferedBytes) {
      this.deps.log.warn({}, 'site event stream dropped: its client does not read what it is sent');
      response.destroy();
    }
  }

  #invalidated(tags: readonly string[]): void {
    const changed = new Set(tags);
    const sites: string[] = [];
    for (const [siteId, channel] of this.#channels) {
      if (changed.has(siteTag(siteId))) sites.push(siteId);
      for (const stream of channel.streams) if (stream.endTags.some((tag) => changed.has(tag))) stream.response.end();
    }
    this.#refresher.refresh(sites);
  }

  async #refreshSites(siteIds: readonly string[]): Promise<void> {
    const latest = await latestSiteVersions(this.deps.db, siteIds);
    for (const siteId of siteIds) {
      const channel = this.#channels.get(siteId);
      if (channel === undefined) continue;
      const row = latest.get(siteId);
      // In the trash, or moved to another workspace: what the members were allowed to read is gone.
      if (row === undefined || row.workspace_id !== channel.workspaceId) {
        this.#channels.delete(siteId);
        for (const stream of channel.streams) stream.response.end();
        continue;
      }
      if (row.version <= channel.version) continue;
      channel.version = row.version;
      channel.event = encodeEvent(siteVersionEvent(row));
      for (const stream of channel.streams) this.#write(stream, channel.event);
    }
  }

  #beat(): void {
    const now = performance.now();
    for (const channel of this.#channels.values()) {
      for (const stream of channel.streams) {
        if (now - stream.openedAt >= this.options.maxAgeMs) stream.response.end();
        else this.#write(stream, HEARTBEAT);
      }
    }
  }
}
