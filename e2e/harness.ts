import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { buildTestApp, ManualClock, type TestApp, type TestAppOptions } from '../test/helpers.js';
import { freePort } from '../test/processes.js';
import { startSmtpServer, type TestSmtpServer } from '../test/smtp.js';

/** Debian's Chromium. The browser tests fail without it: a skipped browser test proves nothing. */
export const CHROMIUM = '/usr/bin/chromium';

/** Screenshots land here on every run, for a person to look at (`test-results/` is not committed). */
export const SCREENSHOT_DIR = path.resolve('test-results', 'screenshots');

export interface Dashboard {
  t: TestApp;
  smtp: TestSmtpServer;
  /** http://localhost:<port>: PUBLIC_URL, so cookies, CSRF origin checks and WebAuthn all agree. */
  origin: string;
  context: BrowserContext;
  page: Page;
  /** Writes test-results/screenshots/<name>.png of the whole page. */
  screenshot(name: string, target?: Page): Promise<void>;
  /**
   * A second, separate browser context (another device: its own cookies, storage and cache) on the
   * same server. `settled` waits until the browser is idle (see waitUntilIdle).
   */
  newDevice(): Promise<{ context: BrowserContext; page: Page; settled: () => Promise<void> }>;
  /** A Chromium virtual authenticator (a platform authenticator with resident keys and user verification). */
  addVirtualAuthenticator(target?: Page): Promise<{ cdp: CDPSession; authenticatorId: string }>;
  close(): Promise<void>;
}

// One Chromium per test file, started on first use: each device is a browser context of its own
// (its own cookies, storage and cache, like a separate profile), which opens in milliseconds where
// starting a browser takes seconds of both cores.
let browser: Promise<Browser> | undefined;
function sharedBrowser(): Promise<Browser> {
  browser ??= chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  return browser;
}
after(async () => {
  if (browser !== undefined) await (await browser).close();
});

/**
 * The built dashboard (dist/web) served by the real app on loopback, with a temporary database
 * (SQLite, or PostgreSQL in the PostgreSQL run), mail delivered over SMTP to an in-process server,
 * and a headless Chromium pointed at it.
 */
export async function openDashboard(
  options: { env?: Record<string, string>; viewport?: { width: number; height: number }; port?: number; usage?: TestAppOptions['usage'] } = {},
): Promise<Dashboard> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  // A port chosen beforehand, when something set up first must know PUBLIC_URL (a provider's redirect URI).
  const port = options.port ?? (await freePort());
  const origin = `http://localhost:${port}`;
  const smtp = await startSmtpServer();
  // Real time: the browser's cookies and the server's sessions and challenges must agree on it.
  const t = await buildTestApp({ env: { PUBLIC_URL: origin, SMTP_URL: smtp.url, ...options.env }, clock: new ManualClock(Date.now()), ...(options.usage === undefined ? {} : { usage: options.usage }) });
  await t.app.listen({ port, host: '127.0.0.1' });
  const viewport = options.viewport ?? { width: 1440, height: 900 };
  const contexts: BrowserContext[] = [];
  async function newDevice() {
    const context = await (await sharedBrowser()).newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    return { context, page, settled: waitUntilIdle };
  }
  const { context, page } = await newDevice();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    t,
    smtp,
    origin,
    context,
    page,
    newDevice,
    async screenshot(name, target = page) {
      await target.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    async addVirtualAuthenticator(target = page) {
      const cdp = await target.context().newCDPSession(target);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      return { cdp, authenticatorId };
    },
    async close() {
      for (const each of contexts) await each.close().catch(() => undefined);
      await t.close();
      await smtp.close();
    },
  };
}

/** CPU time (user and system, in clock ticks) of the Chromium this process started and of every process under it. */
function browserCpuTicks(): number {
  const processes = new Map<number, { parent: number; ticks: number; commandLine: string }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command's name, which may hold spaces: state, parent, …, utime (14th), stime (15th).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      processes.set(pid, { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), commandLine: readFileSync(`/proc/${entry}/cmdline`, 'utf8') });
    } catch {
      // The process ended while we looked.
    }
  }
  const ours = new Set([...processes].filter(([, each]) => each.parent === process.pid && each.commandLine.includes('chromium')).map(([pid]) => pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, each] of processes) {
      if (!ours.has(pid) && ours.has(each.parent)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const pid of ours) ticks += processes.get(pid)?.ticks ?? 0;
  return ticks;
}

/**
 * Waits (up to 10 s) until this file's browser and its processes use next to no CPU: a
 * browser just launched goes on starting up for a second or more (its own interface pages among
 * it), which a load timed at once would share the cores with. A person's browser is long started
 * when they open a page.
 */
async function waitUntilIdle(): Promise<void> {
  const deadline = Date.now() + 10_000;
  let before = browserCpuTicks();
  // A second in a row with under 2 ticks (about 20 ms of CPU) in each quarter: start-up comes in bursts.
  for (let quiet = 0; quiet < 4 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = browserCpuTicks();
    quiet = now - before < 2 ? quiet + 1 : 0;
    before = now;
  }
}
