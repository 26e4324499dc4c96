import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { settingsValidators } from './settingsValidatorsPlugin.ts';

// Unit tests of the dashboard's pure logic (web/src/**/*.test.ts), run by `npm test` through
// scripts/test.mjs. Node is enough: they touch no DOM.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [settingsValidators()],
  resolve: { alias: { '@server': fileURLToPath(new URL('../src', import.meta.url)) } },
  test: { include: ['src/**/*.test.ts'], environment: 'node' },
});
