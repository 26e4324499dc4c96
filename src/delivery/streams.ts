import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Cache } from '../cache/cache.js';
import { siteTag } from '../cache/change-feed.js';
import type { Clock } from '../lib/clock.js';
import type { PublicDocument } from './document.js';
import type { PublicConfigs } from './public-configs.js';
import { SiteRefresher } from './site-refresher.js';

export interface PublicStreamOptions {
  /** A comment is sent on every stream this often, so proxies and browsers see it alive. */
  heartbeatMs: number;
  /** How often the change feed is asked for other processes' changes: SQLite's counter is only read when asked. */
  pollIntervalMs: number;
  /** How often the versions are read from the database instead while the feed cannot vouch for the cache (PostgreSQL's listener is away, or the cache is off). */
  databasePollIntervalMs: number;
  /** Bytes a stream may hold unread by its client; a client that does not read past it is dropped. */
  maxBufferedBytes: number;
}

export const DEFAULT_STREAM_OPTIONS: PublicStreamOptions = { heartbeatMs: 25_000, pollIntervalMs: 250, databasePollIntervalMs: 1000, maxBufferedBytes: 1024 * 1024 };

/** What the hub logs: failures to re-read the sites it streams, and streams it dropped. */
export interface StreamLog {
  warn(details: { err?: unknown; site_id?: string }, message: string): void;
}

const HEARTBEAT = Buffer.from(':\n\n');
/** Sent first on every stream: how long a browser waits before it reconnects. */
const RETRY = Buffer.from('retry: 3000\n\n');

/**
 * Writes an event stream's status and headers. Node keeps a response's head for the response's
 * life (`_header`, which `headersSent` reads), built by one string concatenation per header: a
 * rope of many small strings, several times the size of its text. A stream may live for hours,
 * so its head is replaced by the same text in one flat string before it is sent (what that saves
 * a stream: docs/performance.md, Memory).
 */
export function writeStreamHead(response: ServerResponse, headers: OutgoingHttpHeaders): void {
  response.writeHead(200, headers);
  const kept = response as ServerResponse & { _header?: unknown };
  if (typeof kept._header === 'string') kept._header = Buffer.from(kept._header, 'latin1').toString('latin1');
}

/** One open stream: the response it writes to, the key it was opened with and the client's address. */
interface Stream {
  readonly response: ServerResponse;
  readonly key: string;
  readonly address: string;
}

/** Why a stream was refused a place: this process holds its bound, or this client address does. */
export type StreamRefusal = 'server_full' | 'address_full';

/** The streams of one site, and the version they were last sent. */
interface Channel {
  document: PublicDocument;
  readonly streams: Set<Stream>;
}

/**
 * The open event streams of public configurations, in one process. Streams of a site share one
 * channel: a change is read from the database once per site, encoded once, and the same bytes are
 * written to each of its streams. Two timers serve them all, however many there are: the heartbeat
 * and the poll; no stream has a timer of its own.
 *
 * Changes arrive as the cache hears of them (src/cache/cache.ts: this process's writes, and other
 * processes' through the change feed); a change the feed cannot place (SQLite's counter moved, the
 * PostgreSQL listener came back) re-reads every channel's version. While the feed cannot vouch for
 * anything, the versions are polled from the database. That re-reading is SiteRefresher's
 * (site-refresher.ts), shared with the members' streams (site-event-streams.ts).
 */
export class PublicStreams {
  readonly #channels = new Map<string, Channel>();
  readonly #refresher: SiteRefresher;
  #open = 0;
  /** Places taken by each client address, reserved or open; an address with none is not kept. */
  readonly #openByAddress = new Map<string, number>();
  #closed = false;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #poll: NodeJS.Timeout;
  readonly #stopObserving: () => void;

  constructor(
    private readonly deps: { configs: PublicConfigs; cache: Cache; clock: Clock; log: StreamLog; maxStreams: number; maxStreamsPerAddress: number },
    private readonly options: PublicStreamOptions,
  ) {
    this.#refresher = new SiteRefresher(
      { cache: deps.cache, log: deps.log, channels: this.#channels, read: (siteIds) => this.#refreshSites(siteIds), failure: 'reading public configurations for their event streams failed; tried again shortly' },
      options,
    );
    this.#stopObserving = deps.cache.observe({
      invalidated: (tags) => this.#invalidated(tags),
      cleared: () => this.#refresher.refreshAll(),
    });
    this.#heartbeat = setInterval(() => this.#beat(), options.heartbeatMs).unref();
    this.#poll = setInterval(() => this.#refresher.poll(), options.pollIntervalMs).unref();
  }

  /** Streams open now. */
  get size(): number {
    return this.#open;
  }

  /** Streams open now per site id (src/usage/counter.ts reports them). */
  openPerSite(): Map<string, number> {
    const open = new Map<string, number>();
    for (const [siteId, channel] of this.#channels) open.set(siteId, channel.streams.size);
    return open;
  }

  /** Streams of one site open now. */
  openFor(siteId: string): number {
    return this.#channels.get(siteId)?.streams.size ?? 0;
  }

  /**
   * Takes a place for a stream about to open from this client address, if the per-process bound
   * and the address's own bound leave one and the server is not closing; else says which bound
   * refused it. Taken before the stream's site is read, so that requests arriving together cannot
   * all pass a bound; `open` uses the place, `release` gives it back. The bound per address keeps
   * one client from taking every place of the process (then every other visitor would be refused).
   */
  reserve(address: string): StreamRefusal | undefined {
    if (this.#closed || this.#open >= this.deps.maxStreams) return 'server_full';
    const held = this.#openByAddress.get(address) ?? 0;
    if (held >= this.deps.maxStreamsPerAddress) return 'address_full';
    this.#openByAddress.set(address, held + 1);
    this.#open++;
    return undefined;
  }

  release(address: string): void {
    this.#open--;
    const held = (this.#openByAddress.get(address) ?? 1) - 1;
    if (held > 0) this.#openByAddress.set(address, held);
    else this.#openByAddress.delete(address);
  }

  /**
   * Starts a stream, in a place taken with `reserve`, on a response whose headers the caller has
   * written: the configuration at once, unless the client holds this version already
   * (Last-Event-ID), then every new version. `address` is the one the place was reserved for.
   */
  open(response: ServerResponse, key: string, address: string, document: PublicDocument, lastEventId: string | undefined): void {
    if (this.#closed) {
      this.release(address);
      response.end();
      return;
    }
    let channel = this.#channels.get(document.siteId);
    if (channel === undefined) {
      channel = { document, streams: new Set() };
      this.#channels.set(document.siteId, channel);
    } else if (document.version > channel.document.version) {
      channel.document = document;
    }
    const stream: Stream = { response, key, address };
    channel.streams.add(stream);
    const site = channel;
    response.on('close', () => {
      if (!site.streams.delete(stream)) return;
      this.release(address);
      if (site.streams.size === 0 && this.#channels.get(document.siteId) === site) this.#channels.delete(document.siteId);
    });
    this.#write(stream, RETRY);
    if (lastEventId?.trim() !== String(channel.document.version)) this.#write(stream, channel.document.event);
  }

  /** Ends every stream (their clients reconnect, to this server's successor or another) and stops listening. */
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

  #write(stream: Stream, bytes: Buffer): void {
    const response = stream.response;
    if (response.destroyed || response.writableEnded) return;
    response.write(bytes);
    // A client that does not read would have us keep every event for it; it is dropped instead
    // (its browser reconnects, and is sent the current version).
    if (response.writableLength > this.options.maxBufferedBytes) {
      this.deps.log.warn({}, 'public event stream dropped: its client does not read what it is sent');
      response.destroy();
    }
  }

  #invalidated(tags: readonly string[]): void {
    const changed: string[] = [];
    for (const tag of tags) {
      const siteId = siteIdOfTag(tag);
      if (siteId !== undefined && this.#channels.has(siteId)) changed.push(siteId);
    }
    this.#refresher.refresh(changed);
  }

  /** Reads the versions of these sites, and the documents of those that moved, and sends them. */
  async #refreshSites(siteIds: readonly string[]): Promise<void> {
    const versions = await this.deps.configs.versions(siteIds);
    const moved = siteIds.filter((siteId) => {
      const channel = this.#channels.get(siteId);
      const version = versions.get(siteId);
      return channel !== undefined && (version === undefined || version > channel.document.version);
    });
    if (moved.length === 0) return;
    const documents = await this.deps.configs.loadSites(moved);
    for (const siteId of moved) {
      const channel = this.#channels.get(siteId);
      if (channel === undefined) continue;
      const document = documents.get(siteId);
      if (document === undefined) {
        // Trashed or deleted: its keys answer nothing any more.
        this.#endChannel(siteId, channel);
        continue;
      }
      if (document.version <= channel.document.version) continue;
      channel.document = document;
      for (const stream of channel.streams) {
        if (document.answersFor(stream.key, this.deps.clock)) this.#write(stream, document.event);
        else stream.response.end();
      }
    }
  }

  #endChannel(siteId: string, channel: Channel): void {
    this.#channels.delete(siteId);
    for (const stream of channel.streams) stream.response.end();
  }

  #beat(): void {
    for (const channel of this.#channels.values()) {
      for (const stream of channel.streams) {
        // A key replaced more than 24 hours ago stops here, as it would on a new request.
        if (channel.document.answersFor(stream.key, this.deps.clock)) this.#write(stream, HEARTBEAT);
        else stream.response.end();
      }
    }
  }
}

const SITE_TAG_PREFIX = siteTag('');

function siteIdOfTag(tag: string): string | undefined {
  return tag.startsWith(SITE_TAG_PREFIX) ? tag.slice(SITE_TAG_PREFIX.length) : undefined;
}
