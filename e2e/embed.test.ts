import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createPostgresDatabase, STRONG_PASSWORD } from '../test/helpers.js';
import { freePort, type RunningServer, startServer, stopServer } from '../test/processes.js';
import { CHROMIUM } from './harness.js';

// The embed script in a real Chromium, as a customer's page uses it: a plain page on another
// loopback origin than Siteward's loads {PUBLIC_URL}/embed.js with the site's key, and its own
// script listens for `siteward:config`. The app runs as `npm start` runs it, on SQLite or (with
// TEST_DATABASE_URL) PostgreSQL, and is restarted under the page.

/** DESIGN's bound for a change to reach a page with its stream open. */
const CHANGE_BOUND_MS = 2000;

interface Received {
  version: number;
  site: { name: string; widget: Record<string, unknown> | null };
}

/** The customer's page: the snippet, and its own code recording each configuration it is handed. */
function customerPage(appOrigin: string, publicKey: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script>
  window.received = [];
  document.addEventListener('siteward:config', (event) => window.received.push(event.detail));
</script>
<script src="${appOrigin}/embed.js" data-site="${publicKey}" async></script>
</head><body><h1>A shop that embeds the help widget</h1></body></html>`;
}

async function received(page: Page): Promise<Received[]> {
  return page.evaluate(() => (globalThis as unknown as { received: Received[] }).received);
}

async function untilVersion(page: Page, version: number, timeoutMs: number): Promise<Received> {
  await page.waitForFunction((wanted) => (globalThis as unknown as { received: Received[] }).received.some((config) => config.version === wanted), version, { timeout: timeoutMs });
  const found = (await received(page)).find((config) => config.version === version);
  assert.ok(found !== undefined);
  return found;
}

test('a page on another origin loads embed.js, gets the configuration and each change within 2 s, and keeps working across a restart of the app server', async (t) => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-embed-'));
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  const postgres = adminUrl === '' ? undefined : await createPostgresDatabase(adminUrl);
  const port = await freePort();
  const appOrigin = `http://localhost:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PUBLIC_URL: appOrigin,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...(postgres === undefined ? {} : { DATABASE_URL: postgres.url }),
  };
  let app: RunningServer | undefined = await startServer(port, env);
  let shop: Server | undefined;
  let browser: Browser | undefined;
  try {
    const api = async (method: string, url: string, authorization: string | undefined, body?: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(`${appOrigin}${url}`, {
        method,
        headers: { ...(authorization === undefined ? {} : { authorization }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.ok(response.ok, `${method} ${url}: ${response.status}`);
      return (await response.json()) as Record<string, unknown>;
    };
    const signedUp = await api('POST', '/auth/signup', undefined, { email: `embed-${randomBytes(3).toString('hex')}@example.com`, password: STRONG_PASSWORD });
    const bearer = `Bearer ${String(signedUp.token)}`;
    const created = await api('POST', '/api/v1/sites', bearer, { name: 'Shop help', widget: JSON.stringify({ greeting: 'Hi there' }) });
    const site = created.site as { id: string; public_key: string };

    // The customer's page, served from another origin: 127.0.0.1 and another port, not localhost.
    shop = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(customerPage(appOrigin, site.public_key));
    });
    await new Promise<void>((resolve) => shop?.listen(0, '127.0.0.1', resolve));
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const page = await browser.newPage();
    // Each event stream the server answered, with the headers the page sent for it (Last-Event-ID).
    // Attempts made while the server was down got no answer and are not among them.
    const streamRequests: Array<Record<string, string>> = [];
    let streamRequested: () => void = () => undefined;
    page.on('response', (response) => {
      if (!response.url().endsWith(`/public/v1/sites/${site.public_key}/events`) || response.status() !== 200) return;
      // All of them, as sent on the wire: headers() leaves some out.
      void response
        .request()
        .allHeaders()
        .then((headers) => {
          streamRequests.push(headers);
          streamRequested();
        });
    });
    const untilStreamRequests = async (count: number, timeoutMs: number): Promise<void> => {
      const deadline = performance.now() + timeoutMs;
      while (streamRequests.length < count) {
        const left = deadline - performance.now();
        assert.ok(left > 0, `the page asked for the stream ${streamRequests.length} times, not ${count}, within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          streamRequested = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    };
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // The embed script's own complaints; the browser's note of a refused connection while the server restarts is expected.
    page.on('console', (message) => {
      if (message.type() === 'error' && message.text().startsWith('Siteward')) pageErrors.push(message.text());
    });
    await page.goto(shopUrl);

    const first = await untilVersion(page, 1, 10_000);
    assert.deepEqual(first.site.widget, { greeting: 'Hi there' });
    assert.equal(await page.evaluate(() => (globalThis as unknown as { Siteward: { config: Received } }).Siteward.config.version), 1);
    // The stream is open before the change is made: the change then travels through it.
    await untilStreamRequests(1, 10_000);

    await api('PUT', `/api/v1/sites/${site.id}`, bearer, { widget: JSON.stringify({ greeting: 'Hello again' }) });
    const since = performance.now();
    const second = await untilVersion(page, 2, CHANGE_BOUND_MS);
    t.diagnostic(`the change reached the page ${(performance.now() - since).toFixed(0)} ms after the API answered`);
    assert.deepEqual(second.site.widget, { greeting: 'Hello again' });

    // The app server restarts under the page: it ends the stream cleanly; the browser reconnects
    // when it is back, saying which version it holds.
    const streamsBefore = streamRequests.length;
    assert.equal(await stopServer(app), 0);
    app = undefined;
    app = await startServer(port, env);
    await untilStreamRequests(streamsBefore + 1, 20_000);
    const reconnection = streamRequests.at(-1);
    assert.equal(reconnection?.['last-event-id'], '2', `the browser reconnected with the version it held: ${JSON.stringify(streamRequests)}`);

    await api('PUT', `/api/v1/sites/${site.id}`, bearer, { name: 'Shop help, after the restart' });
    const restartedAt = performance.now();
    const third = await untilVersion(page, 3, CHANGE_BOUND_MS);
    t.diagnostic(`after the restart, the change reached the page ${(performance.now() - restartedAt).toFixed(0)} ms after the API answered`);
    assert.equal(third.site.name, 'Shop help, after the restart');
    // Every version once, in order: nothing was handed to the page twice across the reconnection.
    assert.deepEqual((await received(page)).map((config) => config.version), [1, 2, 3]);
    assert.deepEqual(pageErrors, []);
  } finally {
    await browser?.close();
    await new Promise((resolve) => (shop === undefined ? resolve(undefined) : shop.close(resolve)));
    if (app !== undefined) await stopServer(app);
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
