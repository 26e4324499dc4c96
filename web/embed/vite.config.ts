import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompressed } from '../precompressPlugin.ts';

// The embed script (embed.ts) as one classic script, built into dist/embed beside the dashboard;
// the server serves it at /embed.js (src/delivery/embed-script.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [precompressed()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/embed', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    minify: true,
    // Pages embed it in browsers of every age that have EventSource and fetch.
    target: 'es2020',
    lib: { entry: fileURLToPath(new URL('embed.ts', import.meta.url)), formats: ['iife'], name: 'SitewardEmbed', fileName: () => 'embed.js' },
  },
});
