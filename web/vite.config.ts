import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompressed } from './precompressPlugin.ts';
import { preloadDashboard } from './preloadDashboardPlugin.ts';
import { settingsValidators } from './settingsValidatorsPlugin.ts';

const root = fileURLToPath(new URL('.', import.meta.url));

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
    // The compressed copies take seconds on purpose (brotli's highest setting): no warning for it.
    rolldownOptions: {
      checks: { bundlerTimings: false },
      output: {
        // The frameworks every screen runs on change only when they are upgraded: in a chunk of
        // their own, browsers keep them cached across releases, and the entry script holds the
        // dashboard's own first screens. The screens and CodeMirror load on first use (App.tsx).
        codeSplitting: { groups: [{ name: 'framework', test: /node_modules[\\/](react|react-dom|scheduler|react-router|@tanstack)[\\/]/ }] },
      },
    },
  },
  server: {
    // `npx vite --config web/vite.config.ts` for UI work: API calls go to a running `npm start`.
    proxy: { '/api': 'http://127.0.0.1:3000', '/auth': 'http://127.0.0.1:3000', '/magic': 'http://127.0.0.1:3000' },
  },
});
