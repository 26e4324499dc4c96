import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { App } from '../http/types.js';

/** Where `npm run build` puts the dashboard (web/vite.config.ts): dist/web beside dist/src. */
export const WEB_BUILD_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

/** The dashboard's client-side screens; each answers index.html and the app picks the screen. */
const SCREENS = ['/', '/sign-in', '/sign-up', '/sites', '/sites/:id', '/settings', '/settings/access-tokens', '/settings/security'];

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

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

interface Asset {
  body: Buffer;
  gzipped: Buffer | undefined;
  contentType: string;
  etag: string;
}

function loadAsset(file: string, contentType: string): Asset {
  const body = readFileSync(file);
  // Compressed once at start-up: the files never change while the process runs.
  const gzipped = body.length > 1024 && !contentType.startsWith('image/png') ? gzipSync(body, { level: 9 }) : undefined;
  return { body, gzipped, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string): FastifyReply {
  reply.header('content-type', asset.contentType).header('cache-control', cacheControl).header('etag', asset.etag).header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (asset.gzipped !== undefined && acceptsGzip) return reply.header('content-encoding', 'gzip').send(asset.gzipped);
  return reply.send(asset.body);
}

/**
 * Serves the built dashboard from memory: the hashed files under /assets/ for a year (their names
 * change with their content), and index.html, never cached, for every screen's address.
 */
export function registerDashboard(app: App, buildDir: string = WEB_BUILD_DIR): void {
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

  const index = loadAsset(indexFile, 'text/html; charset=utf-8');
  const assets = new Map<string, Asset>();
  const assetsDir = path.join(buildDir, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      const file = path.join(assetsDir, name);
      if (!statSync(file).isFile()) continue;
      assets.set(name, loadAsset(file, CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream'));
    }
  }

  for (const screen of SCREENS) {
    app.get(screen, { schema: { hide: true } }, async (request, reply) => {
      reply.header('content-security-policy', DASHBOARD_CSP).header('x-frame-options', 'DENY').header('referrer-policy', 'same-origin');
      return sendAsset(request, reply, index, 'no-cache');
    });
  }
  app.get('/settings/*', { schema: { hide: true } }, async (request, reply) => {
    reply.header('content-security-policy', DASHBOARD_CSP).header('x-frame-options', 'DENY');
    return sendAsset(request, reply, index, 'no-cache');
  });

  app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    // Only names read from the build folder at start-up are served: no path ever reaches the file system.
    const asset = assets.get(request.params.file);
    if (asset === undefined) {
      reply.callNotFound();
      return reply;
    }
    return sendAsset(request, reply, asset, 'public, max-age=31536000, immutable');
  });
}
