import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { ChunkingContext } from 'rolldown';
import { defineConfig } from 'vite';
import { precompressed } from './precompressPlugin.ts';
import { preloadDashboard } from './preloadDashboardPlugin.ts';
import { settingsValidators } from './settingsValidatorsPlugin.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const entryModule = fileURLToPath(new URL('src/boot.ts', import.meta.url));
const dashboardModule = fileURLToPath(new URL('src/main.tsx', import.meta.url));

/** A module and everything it imports statically. */
function staticGraph(from: string, context: ChunkingContext): Set<string> {
  const found = new Set<string>();
  const visit = (id: string) => {
    if (found.has(id)) return;
    found.add(id);
    context.getModuleInfo(id)?.importedIds.forEach(visit);
  };
  visit(from);
  return found;
}

// The first screens' code, worked out once per chunking pass: the dashboard's module graph less
// what the entry script already holds.
const firstScreensByPass = new WeakMap<ChunkingContext, Set<string>>();
function firstScreens(context: ChunkingContext): Set<string> {
  let modules = firstScreensByPass.get(context);
  if (modules === undefined) {
    const entry = staticGraph(entryModule, context);
    modules = new Set([...staticGraph(dashboardModule, context)].filter((id) => !entry.has(id)));
    firstScreensByPass.set(context, modules);
  }
  return modules;
}

// The dashboard is built into dist/web, beside the compiled server, which serves it (src/web/static.ts).
export default defineConfig({
  root,
  plugins: [react(), settingsValidators(), preloadDashboard(fileURLToPath(new URL('src/main.tsx', import.meta.url))), precompressed()],
  // The server's contract: web code imports its import-free value modules (limits, enums, error codes) and only types from the rest.
  resolve: { alias: { '@server': fileURLToPath(new URL('../src', import.meta.url)) } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // The server sends a strict CSP (script-src 'self'): no inline module preload polyfill.
    modulePreload: { polyfill: false },
    // No source maps: served beside the bundle they would publish the dashboard's whole source.
    sourcemap: false,
    // dist/web/.vite/manifest.json: which files each screen loads, for the bundle budgets (e2e/bundle.test.ts); the server serves only assets/.
    manifest: true,
    // The compressed copies take seconds on purpose (brotli's highest setting): no warning for it.
    rolldownOptions: {
      checks: { bundlerTimings: false },
      output: {
        // Two files after the entry script, each loaded whole (docs/decisions/dashboard-bundle-split.md):
        // the frameworks every screen runs, which change only when they are upgraded, so browsers
        // keep them cached across releases; and the dashboard's first screens (main.tsx and all it
        // imports statically: the frame, the sign-in page, the sites list), code later screens
        // share included, rather than split into a file per shared part. The other screens and
        // CodeMirror load on first use (web/src/routes/screens.tsx).
        codeSplitting: {
          groups: [
            { name: 'framework', test: /node_modules[\\/](react|react-dom|scheduler|react-router|@tanstack)[\\/]/, priority: 2 },
            { name: (id, context) => (firstScreens(context).has(id) ? 'main' : null), priority: 1, includeDependenciesRecursively: false },
          ],
        },
      },
    },
  },
  server: {
    // `npx vite --config web/vite.config.ts` for UI work: API calls go to a running `npm start`.
    proxy: { '/api': 'http://127.0.0.1:3000', '/auth': 'http://127.0.0.1:3000', '/magic': 'http://127.0.0.1:3000' },
  },
});
