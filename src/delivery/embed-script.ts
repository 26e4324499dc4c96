import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from '../http/types.js';
import { loadAsset, sendAsset } from '../web/static.js';

/** Where `npm run build` puts the embed script (web/embed/vite.config.ts): dist/embed beside dist/src. */
export const EMBED_BUILD_DIR = fileURLToPath(new URL('../../embed/', import.meta.url));

/**
 * Pages that embed it fetch it on every visit; a new Siteward's script reaches them within five
 * minutes, and a cache may keep answering with the old one for a day while it fetches the new.
 */
const EMBED_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400';

/**
 * GET /embed.js: the script customers put on their pages (web/embed/embed.ts, docs/embedding.md),
 * read from the build once at start-up and served from memory, compressed when asked. Other
 * sites' pages load it, so it may be loaded across origins.
 */
export function registerEmbedScript(app: App, buildDir: string = EMBED_BUILD_DIR): void {
  const file = path.join(buildDir, 'embed.js');
  if (!existsSync(file)) {
    app.log.warn({ file }, 'the embed script is not built (run `npm run build`); /embed.js answers 503');
    app.get('/embed.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.code(503).type('text/plain; charset=utf-8').send('The Siteward embed script has not been built. Run `npm run build`, then restart.\n'),
    );
    return;
  }
  const script = loadAsset(file, 'text/javascript; charset=utf-8');
  app.get('/embed.js', { schema: { hide: true }, compress: false }, async (request, reply) => {
    reply.headers({ 'cross-origin-resource-policy': 'cross-origin', 'access-control-allow-origin': '*' });
    return sendAsset(request, reply, script, EMBED_CACHE_CONTROL);
  });
}
