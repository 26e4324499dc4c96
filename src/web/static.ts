import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { preferredEncoding } from '../http/compression.js';
import { COMPRESSED_SUFFIXES, type Compressed, compressFully, isCompressible } from './precompressed.js';
import type { App } from '../http/types.js';
import { SCREENS, SIGNED_OUT_SCREENS, SITE_LIST_FIRST_PAGE, SITE_LIST_SCREENS } from './screens.js';

/** Where `npm run build` puts the dashboard (web/vite.config.ts): dist/web beside dist/src. */
export const WEB_BUILD_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * The dashboard loads only its own script and stylesheet: no inline script (an injected <script>
 * does not run), no outside origin, no framing (clickjacking), no <base> rewriting. The TOTP QR code
 * is shown as a data: image.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The files served from the assets folder, by extension. Source maps are not among them: they
 * would publish the dashboard's whole source; the build makes none that are referenced.
 */
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface Asset {
  body: Buffer;
  compressed: Compressed | undefined;
  contentType: string;
  etag: string;
}

/**
 * Compressed copies made here, by content digest, for a build without the copies the build writes
 * (a build folder made by hand). Each is made once however many apps the process builds.
 */
const compressedCopies = new Map<string, Compressed>();

function compressedCopy(file: string, digest: string, body: Buffer): Compressed {
  const [brFile, gzipFile] = [file + COMPRESSED_SUFFIXES.br, file + COMPRESSED_SUFFIXES.gzip];
  if (existsSync(brFile) && existsSync(gzipFile)) return { br: readFileSync(brFile), gzip: readFileSync(gzipFile) };
  let copy = compressedCopies.get(digest);
  if (copy === undefined) {
    copy = compressFully(body);
    compressedCopies.set(digest, copy);
  }
  return copy;
}

export function loadAsset(file: string, contentType: string): Asset {
  const body = readFileSync(file);
  const digest = createHash('sha256').update(body).digest('base64url');
  return { body, compressed: isCompressible(file, body.length) ? compressedCopy(file, digest, body) : undefined, contentType, etag: `"${digest.slice(0, 27)}"` };
}

/** index.html with `edit` applied to its text; a page without a head of its own (not the dashboard's build) is served as it is. */
function rewrittenIndex(index: Asset, edit: (html: string, headEnd: number) => string): Asset {
  const html = index.body.toString('utf8');
  const at = html.indexOf('</head>');
  if (at === -1) return index;
  const body = Buffer.from(edit(html, at));
  const digest = createHash('sha256').update(body).digest('base64url');
  return { body, compressed: isCompressible('index.html', body.length) ? compressFully(body) : undefined, contentType: index.contentType, etag: `"${digest.slice(0, 27)}"` };
}

/**
 * index.html for the sites list opened without a query: it also preloads the list's first page, so
 * that request leaves as the page is read rather than once the entry script runs, and the entry
 * script's own request takes the answer (web/src/earlyRequests.ts). Placed after the scripts'
 * links: the browser has six connections to the server, and a request that waits for one should be
 * an answer needed only once the scripts run, not the frameworks. The other screens' index.html
 * has no such line, so they never ask for a list they do not show.
 */
export function withSiteListPreload(index: Asset): Asset {
  return rewrittenIndex(index, (html, at) => `${html.slice(0, at)}  <link rel="preload" as="fetch" crossorigin href="${SITE_LIST_FIRST_PAGE.replaceAll('&', '&amp;')}">\n  ${html.slice(at)}`);
}

/**
 * Whether a page request comes from someone signed in (`Guard.isSignedInPage`: a live web session,
 * by the same check as the API's); it may clear a cookie that names no session any more.
 */
export type SignedInCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

/** `cacheControl` undefined: an answer nobody keeps or revalidates (the not-found screen), so no ETag either. */
export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string | undefined): FastifyReply {
  reply.header('content-type', asset.contentType).header('vary', 'accept-encoding');
  if (cacheControl === undefined) {
    reply.header('cache-control', 'no-store');
  } else {
    reply.header('cache-control', cacheControl).header('etag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  }
  const encoding = asset.compressed === undefined ? undefined : preferredEncoding(request.headers['accept-encoding']);
  if (asset.compressed !== undefined && encoding !== undefined) return reply.header('content-encoding', encoding).send(asset.compressed[encoding]);
  return reply.send(asset.body);
}

/** Fetches and API clients ask for JSON or anything; a browser opening an address lists text/html first. */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let html = 0;
  let other = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...parameters] = part.split(';').map((item) => item.trim().toLowerCase());
    const qParameter = parameters.find((parameter) => parameter.startsWith('q='));
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2));
    if (!Number.isFinite(q)) continue;
    if (range === 'text/html') html = Math.max(html, q);
    else if (range === 'application/json' || range === 'application/problem+json') other = Math.max(other, q);
  }
  return html > 0 && html > other;
}

/** Paths that are never a dashboard screen: their unknown addresses keep the API's problem+json 404. */
function isApiPath(url: string): boolean {
  return /^\/(?:api|auth)(?:[/?]|$)/.test(url);
}

/** The built dashboard's files as served, read and digested once. */
interface DashboardBuild {
  index: Asset;
  siteListIndex: Asset;
  signedOutPage: Asset | undefined;
  assets: Map<string, Asset>;
}

/**
 * Builds read, by folder and when it, its two pages and its assets folder last changed: a process
 * that builds the app again (the tests build hundreds) reads, digests and compresses the files
 * once, and a folder written anew is read anew.
 */
const loadedBuilds = new Map<string, DashboardBuild>();

function loadBuild(buildDir: string): DashboardBuild {
  const indexFile = path.join(buildDir, 'index.html');
  const assetsDir = path.join(buildDir, 'assets');
  const signedOutFile = path.join(buildDir, 'signed-out.html');
  const stamp = (file: string) => {
    const stat = statSync(file, { throwIfNoEntry: false });
    return stat === undefined ? '-' : `${stat.mtimeMs}:${stat.size}`;
  };
  const version = [buildDir, stamp(buildDir), stamp(indexFile), stamp(signedOutFile), stamp(assetsDir)].join('\0');
  const loaded = loadedBuilds.get(version);
  if (loaded !== undefined) return loaded;
  const index = loadAsset(indexFile, 'text/html; charset=utf-8');
  const assets = new Map<string, Asset>();
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      const file = path.join(assetsDir, name);
      const contentType = CONTENT_TYPES[path.extname(name)];
      if (contentType === undefined || !statSync(file).isFile()) continue;
      assets.set(name, loadAsset(file, contentType));
    }
  }
  const build = {
    index,
    siteListIndex: withSiteListPreload(index),
    signedOutPage: existsSync(signedOutFile) ? loadAsset(signedOutFile, 'text/html; charset=utf-8') : undefined,
    assets,
  };
  for (const key of loadedBuilds.keys()) if (key.startsWith(`${buildDir}\0`)) loadedBuilds.delete(key);
  loadedBuilds.set(version, build);
  return build;
}

/**
 * Serves the built dashboard from memory: the hashed files under /assets/ for a year (their names
 * change with their content), and index.html, never cached, for every screen's address. The sign-in
 * screens answer someone signed out with the signed-out document instead (signed-out.html: the same
 * screens with only what they need, docs/decisions/dashboard-signed-out-document.md), which asks
 * the API about no session; someone signed in gets the dashboard, which leads them onwards.
 */
export function registerDashboard(app: App, isSignedIn: SignedInCheck, buildDir: string = WEB_BUILD_DIR): void {
  const indexFile = path.join(buildDir, 'index.html');
  if (!existsSync(indexFile)) {
    app.log.warn({ buildDir }, 'the web interface is not built (run `npm run build`); the API works without it');
    for (const screen of SCREENS) {
      app.get(screen, { schema: { hide: true } }, async (_request, reply) =>
        reply.code(503).type('text/plain; charset=utf-8').send('The Siteward web interface has not been built. Run `npm run build`, then restart.\n'),
      );
    }
    return;
  }

  const { index, siteListIndex, signedOutPage, assets } = loadBuild(buildDir);

  const sendIndex = (request: FastifyRequest, reply: FastifyReply, found: boolean, page: Asset = index): FastifyReply => {
    reply.header('content-security-policy', DASHBOARD_CSP).header('x-frame-options', 'DENY').header('referrer-policy', 'same-origin');
    return sendAsset(request, reply.code(found ? 200 : 404), page, found ? 'no-cache' : undefined);
  };
  for (const screen of SCREENS) {
    const isSiteList = (SITE_LIST_SCREENS as readonly string[]).includes(screen);
    const isSignedOut = (SIGNED_OUT_SCREENS as readonly string[]).includes(screen);
    app.get(screen, { schema: { hide: true }, compress: false }, async (request, reply) => {
      // Only the address itself: with a query (a search, a sort, a workspace, a page) the list's
      // first page is another request, which the entry script makes alone.
      if (isSiteList && request.url === screen) return sendIndex(request, reply, true, siteListIndex);
      // Signed in, the dashboard leads onwards to `next`; a build without the signed-out document
      // (a folder made by hand) serves the dashboard to everyone, which asks who is signed in.
      if (isSignedOut && signedOutPage !== undefined && !(await isSignedIn(request, reply))) return sendIndex(request, reply, true, signedOutPage);
      return sendIndex(request, reply, true, index);
    });
  }
  // Any other address a browser opens gets the dashboard with 404, which draws its not-found
  // screen; API and sign-in paths, and requests that do not ask for HTML, keep the problem+json 404.
  app.get('/*', { schema: { hide: true }, compress: false }, async (request, reply) => {
    if (isApiPath(request.url) || !prefersHtml(request.headers.accept)) {
      reply.callNotFound();
      return reply;
    }
    return sendIndex(request, reply, false);
  });

  app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true }, compress: false }, async (request, reply) => {
    // Only names read from the build folder at start-up are served: no path ever reaches the file system.
    const asset = assets.get(request.params.file);
    if (asset === undefined) {
      reply.callNotFound();
      return reply;
    }
    return sendAsset(request, reply, asset, 'public, max-age=31536000, immutable');
  });
}
