import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Page, Response, Route } from 'playwright-core';
import { createSite, signUp } from '../test/helpers.js';
import { signInPage } from './dashboard-session.js';
import { WEB_BUILD_DIR } from '../src/web/static.js';
import { type Dashboard, openDashboard } from './harness.js';

// What the dashboard's first screens load, and how it copes when the code of a screen does not
// arrive. The sizes are budgets of the build (gzip, the encoding every client accepts); the time a
// cold load takes is measured in dashboard.test.ts, as a diagnostic only.

/**
 * The entry script and what it imports statically: everything a cold load runs before it asks the
 * server for the first screen's data where index.html does not ask for it itself (the sites list
 * with a search, a sort or a page in its address). The entry makes those requests, then imports
 * the dashboard.
 */
const FIRST_REQUESTS_BUDGET = 100 * 1024;
/** Everything the sign-in page and the sites list run before they show: entry, frameworks, shared code. */
const FIRST_LOAD_BUDGET = 160 * 1024;
/**
 * The files index.html preloads beside the entry script: the first screens' code, the frameworks'
 * and the bundler's runtime. A file per part the first screens share with later ones would queue
 * on the browser's six connections to the one server, the first requests for data behind them.
 */
const PRELOADED_FILES_BUDGET = 3;
/**
 * Everything a signed-out page (sign-in, sign-up) runs before anyone acts, read from the build's
 * manifest: the signed-out document's script and what it imports statically (its screens on Preact,
 * web/vite.signed-out.config.ts). The passkey helpers load when the passkey button is pressed.
 */
const SIGNED_OUT_BUDGET = 60 * 1024;

interface BrowserElement {
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): BrowserElement | null };

let dashboard: Dashboard;

before(async () => {
  dashboard = await openDashboard();
});

after(async () => {
  await dashboard.close();
});

interface Script {
  /** Its gzip size. */
  size: number;
  /** How it came: Content-Encoding and Cache-Control. */
  encoding: string | undefined;
  cacheControl: string | undefined;
  /** The files it imports statically (from the same folder): they run before it. */
  imports: string[];
}

/** `import … from "./x.js"`, `import "./x.js"` and `export … from "./x.js"` in built code; not `import("./x.js")`, which loads later. */
const STATIC_IMPORT = /\b(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']\.\/([\w.-]+\.js)["']/g;

/** Every script the page loads from /assets/ from now on, with its gzip size and static imports. */
function recordScripts(page: Page): Map<string, Script> {
  const scripts = new Map<string, Script>();
  page.on('response', (response: Response) => {
    const { pathname } = new URL(response.url());
    if (!pathname.startsWith('/assets/') || !pathname.endsWith('.js')) return;
    const headers = response.headers();
    void response.body().then((body) =>
      scripts.set(pathname.slice('/assets/'.length), {
        size: gzipSync(body, { level: 9 }).length,
        encoding: headers['content-encoding'],
        cacheControl: headers['cache-control'],
        imports: [...body.toString('utf8').matchAll(STATIC_IMPORT)].map((match) => match[1] ?? ''),
      }),
    );
  });
  return scripts;
}

/** A script and everything it imports statically, each once. */
function withStaticImports(scripts: Map<string, Script>, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const script = scripts.get(name);
    assert.ok(script !== undefined, `${name} is imported but was not loaded`);
    script.imports.forEach(visit);
  };
  visit(entry);
  return [...seen];
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const total = (scripts: Map<string, Script>, names: Iterable<string> = scripts.keys()) => [...names].reduce((sum, name) => sum + (scripts.get(name)?.size ?? 0), 0);

test('a cold load runs under 100 KB gzip of scripts before it asks for data and preloads at most three files; the sign-in page and the sites list load no screen they do not show', { timeout: 120_000 }, async () => {
  const { t, origin } = dashboard;
  const { context, page } = await dashboard.newDevice();
  // Signed out, the sign-in page is the signed-out document: its screens on Preact, no dashboard.
  const signIn = recordScripts(page);
  await page.goto(`${origin}/sign-in`);
  await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
  await page.waitForLoadState('networkidle');

  const user = await signUp(t.app);
  await signInPage(page, origin, user.email);
  // The sites list on a cold load of its own (nothing cached), as someone signed in opens the dashboard.
  const { page: cold } = await dashboard.newDevice();
  await cold.context().addCookies(await context.cookies());
  const sitesList = recordScripts(cold);
  const served = await cold.goto(`${origin}/`);
  await cold.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
  await cold.waitForLoadState('networkidle');
  const entrySrc = await cold.evaluate(() => document.querySelector('script[type="module"][src]')?.getAttribute('src') ?? null);
  assert.ok(entrySrc !== null && entrySrc.startsWith('/assets/'), `index.html loads ${String(entrySrc)}`);
  const entry = entrySrc.slice('/assets/'.length);
  const beforeRequests = withStaticImports(sitesList, entry);
  // As index.html lists them: the screens' chunks loaded since add links of their own.
  const preloaded = [...((await served?.text()) ?? '').matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g)].map((match) => match[1] ?? '');

  const list = (scripts: Map<string, Script>, names: Iterable<string> = scripts.keys()) => [...names].map((name) => `${name} ${kb(scripts.get(name)?.size ?? 0)}`).join(', ');
  console.log(`diagnostic: before its first requests a cold load runs ${kb(total(sitesList, beforeRequests))} gzip of scripts (budget ${kb(FIRST_REQUESTS_BUDGET)}): ${list(sitesList, beforeRequests)}`);
  console.log(`diagnostic: the sign-in page signed out loads ${kb(total(signIn))} gzip of scripts (budget ${kb(SIGNED_OUT_BUDGET)}): ${list(signIn)}`);
  console.log(`diagnostic: the sites list after sign-in loads ${kb(total(sitesList))} gzip of scripts (budget ${kb(FIRST_LOAD_BUDGET)}): ${list(sitesList)}`);
  console.log(`diagnostic: index.html preloads ${String(preloaded.length)} files (budget ${String(PRELOADED_FILES_BUDGET)}): ${preloaded.join(', ')}`);
  assert.ok(total(sitesList, beforeRequests) < FIRST_REQUESTS_BUDGET, `a cold load runs ${kb(total(sitesList, beforeRequests))} of scripts before it asks for data`);
  assert.ok(total(sitesList) < FIRST_LOAD_BUDGET, `the sites list loads ${kb(total(sitesList))} of scripts`);
  assert.ok(total(signIn) > 0 && total(signIn) <= SIGNED_OUT_BUDGET, `the sign-in page loads ${kb(total(signIn))} of scripts`);
  assert.ok(preloaded.length > 0 && preloaded.length <= PRELOADED_FILES_BUDGET, `index.html preloads ${String(preloaded.length)} files: ${preloaded.join(', ')}`);
  // Compressed (brotli, which Chromium asks for; the sizes above are gzip's, the encoding every client takes) and kept for good.
  for (const [name, script] of [...signIn, ...sitesList]) {
    if (script.size > 1024) assert.equal(script.encoding, 'br', `${name} came ${String(script.encoding ?? 'uncompressed')}`);
    assert.equal(script.cacheControl, 'public, max-age=31536000, immutable', name);
  }
  // Screens not on show, and CodeMirror above all, load when they are opened; signed out, nothing of the dashboard's frameworks loads.
  for (const name of [...signIn.keys(), ...sitesList.keys()]) {
    assert.doesNotMatch(name, /^(SiteEditor|SettingsTextEditor|Security|Profile|AccessTokens|Workspace|Trash|SignUp|CommandPalette)/, `${name} loaded before it was needed`);
  }
  for (const name of signIn.keys()) assert.doesNotMatch(name, /^(framework|main)-/, `${name} loaded signed out`);
});

/** One chunk of vite's build manifest (dist/web/.vite/manifest.json), keyed by its source. */
interface ManifestChunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
}

test('a signed-out page runs at most the signed-out budget of gzip scripts, counted from the build manifest', () => {
  const manifest = JSON.parse(readFileSync(path.join(WEB_BUILD_DIR, '.vite', 'signed-out-manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const files = new Set<string>();
  const withImports = (key: string) => {
    const chunk = manifest[key];
    assert.ok(chunk !== undefined, `${key} is not in the build manifest`);
    if (files.has(chunk.file)) return;
    files.add(chunk.file);
    chunk.imports?.forEach(withImports);
  };
  // The signed-out document's script (signed-out.html's) and what it imports statically.
  withImports('signed-out.html');
  const gzipSize = (file: string) => gzipSync(readFileSync(path.join(WEB_BUILD_DIR, file)), { level: 9 }).length;
  const sizes = [...files].map((file) => ({ file, size: gzipSize(file) }));
  const sum = sizes.reduce((all, { size }) => all + size, 0);
  const later = [...new Set([...files].flatMap((file) => Object.values(manifest).find((chunk) => chunk.file === file)?.dynamicImports ?? []))].map((key) => manifest[key]?.file ?? key);
  console.log(`diagnostic: a signed-out page runs ${kb(sum)} gzip of scripts (budget ${kb(SIGNED_OUT_BUDGET)}): ${sizes.map(({ file, size }) => `${file} ${kb(size)}`).join(', ')}; on first use: ${later.map((file) => `${file} ${kb(gzipSize(file))}`).join(', ')}`);
  assert.ok(sum <= SIGNED_OUT_BUDGET, `a signed-out page runs ${kb(sum)} of scripts`);
  // CodeMirror, the charts and the signed-in screens are not among them.
  for (const file of files) assert.doesNotMatch(path.basename(file), /^(SiteEditor|SettingsTextEditor|Security|Profile|AccessTokens|Workspace|Trash|CommandPalette|review|ReviewQueue|framework)/, `${file} is loaded signed out`);
});

test('a screen shows a loading state while its code arrives, and the error screen with Reload when it never does', { timeout: 120_000 }, async () => {
  const { t, origin } = dashboard;
  const { page } = await dashboard.newDevice();
  const user = await signUp(t.app);
  await signInPage(page, origin, user.email);
  await page.goto(`${origin}/`);
  await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();

  // The screen's code is held until the loading state has been seen.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/assets/Trash-*.js', async (route) => {
    await released;
    await route.continue();
  });
  // From another screen: that screen stays up, and a bar under the top bar says code is on its way.
  await page.getByRole('link', { name: 'Trash' }).click();
  await page.locator('.code-loading[role="status"]').getByText('Loading…').waitFor({ state: 'attached' });
  assert.ok(await page.getByRole('heading', { name: 'Sites', level: 1 }).isVisible());
  release();
  await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  assert.equal(await page.locator('.code-loading').count(), 0);
  await page.unrouteAll();

  // Opened cold at its address: the screen's place says "Loading…" until its code arrives.
  const { page: cold } = await dashboard.newDevice();
  await cold.context().addCookies(await page.context().cookies(origin));
  const coldReleased = new Promise<void>((resolve) => {
    release = resolve;
  });
  await cold.route('**/assets/Trash-*.js', async (route) => {
    await coldReleased;
    await route.continue();
  });
  await cold.goto(`${origin}/trash`);
  await cold.getByRole('main').getByRole('status').filter({ hasText: 'Loading…' }).waitFor();
  release();
  await cold.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();

  // A newer version was deployed since this page loaded: the old chunk is gone (404).
  const { page: stale } = await dashboard.newDevice();
  await stale.context().addCookies(await page.context().cookies(origin));
  await stale.route('**/assets/Trash-*.js', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' }));
  await stale.goto(`${origin}/`);
  await stale.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
  await stale.getByRole('link', { name: 'Trash' }).click();
  const failure = stale.getByRole('alert').filter({ hasText: 'Something went wrong on this screen' });
  await failure.waitFor();
  // The top bar stays, so the rest of the dashboard is a click away; Reload fetches the screen again.
  await stale.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).waitFor();
  await stale.unrouteAll();
  await failure.getByRole('button', { name: 'Reload' }).click();
  await stale.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  assert.equal(new URL(stale.url()).pathname, '/trash');
});

/** How many times the page asked for each path. */
function countRequests(page: Page): Map<string, number> {
  const asked = new Map<string, number>();
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    asked.set(pathname, (asked.get(pathname) ?? 0) + 1);
  });
  return asked;
}

/** A route handler that holds requests back until `release` is called. */
function holdBack(): { held: (route: Route) => Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    held: async (route) => {
      await released;
      await route.continue();
    },
    release,
  };
}

test('a cold load asks for the account and the sites list at once, before the dashboard code has arrived, each once; signed out it shows the sign-in page', { timeout: 120_000 }, async () => {
  const { t, origin } = dashboard;
  const user = await signUp(t.app);
  await createSite(t.app, user.bearer, { name: 'The early site' });
  const { context, page } = await dashboard.newDevice();
  await signInPage(page, origin, user.email);

  for (const signedIn of [true, false]) {
    const { context: coldContext, page: cold } = await dashboard.newDevice();
    if (signedIn) await coldContext.addCookies(await context.cookies());
    const asked = countRequests(cold);
    // The dashboard's code (every script but the entry) and the account's answer are held back:
    // the list is asked for all the same, so it waits for neither.
    const { held, release } = holdBack();
    let entry: string | undefined;
    await cold.route('**/assets/*.js', async (route) => {
      const { pathname } = new URL(route.request().url());
      entry ??= pathname;
      if (pathname === entry) await route.continue();
      else await held(route);
    });
    await cold.route('**/api/v1/me', held);
    const requestFor = (path: string) => cold.waitForRequest((request) => new URL(request.url()).pathname === path);
    const bothAsked = Promise.all([requestFor('/api/v1/me'), requestFor('/api/v1/sites')]);
    await cold.goto(`${origin}/`, { waitUntil: 'commit' });
    await bothAsked;
    for (const path of ['/api/v1/me', '/api/v1/sites']) assert.equal(asked.get(path), 1, `${path} is asked for while the code is held`);
    release();
    if (signedIn) await cold.locator('.site-row .site-name').getByText('The early site').waitFor();
    else await cold.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
    await cold.waitForLoadState('networkidle');
    for (const path of ['/api/v1/me', '/api/v1/sites']) assert.equal(asked.get(path), 1, `${signedIn ? 'signed in' : 'signed out'}: ${path} was asked for ${String(asked.get(path) ?? 0)} times`);
    await cold.unrouteAll();
  }
});

test("the sites list's page asks for the account and the list's first page itself, before any script has arrived", { timeout: 60_000 }, async () => {
  const { t, origin } = dashboard;
  const user = await signUp(t.app);
  await createSite(t.app, user.bearer, { name: 'The preloaded site' });
  const { context, page } = await dashboard.newDevice();
  await signInPage(page, origin, user.email);
  const { context: coldContext, page: cold } = await dashboard.newDevice();
  await coldContext.addCookies(await context.cookies());
  const asked = countRequests(cold);
  // Every script held back, the entry's too: only index.html can ask for the data now.
  const { held, release } = holdBack();
  await cold.route('**/assets/*.js', held);
  const requestFor = (path: string) => cold.waitForRequest((request) => new URL(request.url()).pathname === path);
  const bothAsked = Promise.all([requestFor('/api/v1/me'), requestFor('/api/v1/sites')]);
  await cold.goto(`${origin}/`, { waitUntil: 'commit' });
  await bothAsked;
  release();
  await cold.locator('.site-row .site-name').getByText('The preloaded site').waitFor();
  await cold.waitForLoadState('networkidle');
  // The entry script's own requests took the preloaded answers.
  for (const path of ['/api/v1/me', '/api/v1/sites']) assert.equal(asked.get(path), 1, `${path} was asked for ${String(asked.get(path) ?? 0)} times`);
  await cold.unrouteAll();
});

test('when the dashboard code never arrives, a cold load says so instead of a blank page', { timeout: 60_000 }, async () => {
  const { origin } = dashboard;
  const { page } = await dashboard.newDevice();
  await page.route('**/assets/main-*.js', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' }));
  // The dashboard's address (the sign-in page signed out is the signed-out document, without main).
  await page.goto(`${origin}/`);
  await page.getByText('The dashboard could not load. Reload the page to try again.').waitFor();
  await page.unrouteAll();
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in to Siteward' }).waitFor();
});
