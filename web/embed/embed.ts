// The embed script: <script src="{PUBLIC_URL}/embed.js" data-site="spk_…" async></script> on any
// page loads the site's public configuration, keeps it current, and hands it to the page's own
// widget code as window.Siteward.config and a `siteward:config` event on document
// (docs/embedding.md). No dependencies, and small: the server's test holds it to 4 KB gzipped.

import { PUBLIC_KEY_PATTERN } from '../../src/delivery/contract';

interface PublicConfig {
  site: Record<string, unknown>;
  version: number;
  updated_at: string;
}

interface Siteward {
  /** The configuration last received; null until the first arrives. */
  config: PublicConfig | null;
}

declare global {
  interface Window {
    Siteward?: Siteward;
  }
}

/** While the stream cannot be used: how often the configuration is fetched (revalidated with its ETag by the browser's cache). */
const POLL_MS = 30_000;
/** While polling: how long before the stream is tried again. */
const STREAM_RETRY_MS = 5 * 60_000;

function start(script: HTMLScriptElement): void {
  const key = script.dataset.site ?? '';
  if (!new RegExp(PUBLIC_KEY_PATTERN).test(key)) {
    console.error('Siteward: the embed script needs data-site="spk_…", the public key from the site\'s Install section.');
    return;
  }
  // The script's own address names the server, whatever path prefix PUBLIC_URL has.
  const url = `${script.src.replace(/\/embed\.js(?:[?#].*)?$/, '')}/public/v1/sites/${key}`;
  const siteward: Siteward = (window.Siteward ??= { config: null });
  let stream: EventSource | undefined;
  let pollTimer: number | undefined;
  let pollingSince = 0;
  let stopped = false;

  // Versions only move forward: the stream and a fetch may deliver the same one, or an older one late.
  const receive = (text: string): void => {
    let config: PublicConfig;
    try {
      config = JSON.parse(text) as PublicConfig;
    } catch {
      return;
    }
    if (siteward.config !== null && config.version <= siteward.config.version) return;
    siteward.config = config;
    document.dispatchEvent(new CustomEvent('siteward:config', { detail: config }));
  };

  const stop = (status: number): void => {
    stopped = true;
    stream?.close();
    window.clearTimeout(pollTimer);
    console.error(`Siteward: the configuration of ${key} cannot be loaded (${status}): check data-site against the site's Install section.`);
  };

  // no-cache: the browser asks with the ETag it holds, and a 304 costs no body.
  const fetchConfig = async (): Promise<void> => {
    try {
      const response = await fetch(url, { cache: 'no-cache', credentials: 'omit' });
      if (response.ok) receive(await response.text());
      else if (response.status === 404 || response.status === 400) stop(response.status);
    } catch {
      // Offline, or the server restarting: the next poll or the stream's reconnection tries again.
    }
  };

  const poll = (): void => {
    if (stopped) return;
    pollTimer = window.setTimeout(() => {
      void fetchConfig().then(() => (Date.now() - pollingSince > STREAM_RETRY_MS ? openStream() : poll()));
    }, POLL_MS);
  };

  // The browser reconnects a stream that drops by itself, sending the last version it received
  // (Last-Event-ID); a stream refused outright (a proxy that does not pass it, a full server) falls
  // back to polling, and is tried again now and then.
  const openStream = (): void => {
    if (stopped) return;
    if (typeof EventSource !== 'function') {
      pollingSince = Date.now();
      poll();
      return;
    }
    const source = new EventSource(`${url}/events`);
    stream = source;
    source.addEventListener('config', (event) => receive((event as MessageEvent<string>).data));
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) return;
      pollingSince = Date.now();
      void fetchConfig().then(poll);
    });
  };

  // The first configuration from the cache in front if it holds one; the stream then keeps it current.
  void fetchConfig().then(openStream);
}

const current = document.currentScript;
if (current instanceof HTMLScriptElement) start(current);
