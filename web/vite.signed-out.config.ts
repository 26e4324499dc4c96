import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { precompressed } from './precompressPlugin.ts';

// The signed-out document (signed-out.html): the dashboard's sign-in and sign-up screens, the same
// modules, built a second time against Preact (preact/compat stands in for React and React DOM) and
// with a stand-in for the router, so someone signed out loads a fraction of the dashboard's code
// (docs/decisions/dashboard-signed-out-document.md). Built after the dashboard, into the same
// folder: its files have names of their own, its manifest too.

const dashboardRouter = fileURLToPath(new URL('src/router.tsx', import.meta.url));
const routerStandIn = fileURLToPath(new URL('src/signedOut/router.tsx', import.meta.url));

/** Every import of `original` (however it is written) gets `replacement` instead. */
function inPlaceOf(original: string, replacement: string): Plugin {
  const name = path.basename(original).replace(/\.tsx?$/, '');
  return {
    name: 'siteward-in-place-of',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (importer === undefined || importer === replacement || path.basename(source).replace(/\.tsx?$/, '') !== name) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === original ? replacement : null;
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), inPlaceOf(dashboardRouter, routerStandIn), precompressed()],
  resolve: {
    alias: [
      { find: '@server', replacement: fileURLToPath(new URL('../src', import.meta.url)) },
      // In this build only: the signed-in dashboard keeps React (web/vite.config.ts).
      { find: /^react\/jsx-(?:dev-)?runtime$/, replacement: 'preact/compat/jsx-runtime' },
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react(?:-dom)?$/, replacement: 'preact/compat' },
    ],
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    // The dashboard's build (web/vite.config.ts) has just emptied the folder and filled it.
    emptyOutDir: false,
    modulePreload: { polyfill: false },
    sourcemap: false,
    // dist/web/.vite/signed-out-manifest.json: what the signed-out pages load, for their budget (e2e/bundle.test.ts).
    manifest: '.vite/signed-out-manifest.json',
    rolldownOptions: {
      input: fileURLToPath(new URL('signed-out.html', import.meta.url)),
      checks: { bundlerTimings: false },
    },
  },
});
