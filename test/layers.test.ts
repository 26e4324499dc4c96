import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importGraph } from './import-graph.js';

/**
 * The server's low layer: storage, HTTP plumbing, helpers and the other machinery every feature
 * builds on. It imports nothing above it (no feature folder, not app.ts or the list of every error
 * code that composes them), so it can be read, and changed, without knowing the features. A feature
 * registers upward what the low layer needs from it: its error codes (src/problem.ts) for instance.
 */
const LOW_LAYER = [
  'src/db/',
  'src/http/',
  'src/lib/',
  'src/cache/',
  'src/background/',
  'src/mail/',
  'src/metrics/',
  'src/outbound/',
  'src/pagination/',
  'src/rate-limit/',
  'src/config.ts',
  'src/errors.ts',
  'src/problem.ts',
];

const inLowLayer = (file: string): boolean => LOW_LAYER.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));

/** Every import of a low-layer file that reaches above it, as "from -> to". Tests drive the whole application and are left out. */
export function upwardImports(graph: Map<string, Set<string>>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    inLowLayer(file) && !/\.test\.tsx?$/.test(file) ? [...targets].filter((target) => !inLowLayer(target)).map((target) => `${file} -> ${target}`) : [],
  );
}

test('no file of the low layer (db, http, lib, errors and the other machinery) imports a feature or the files that compose them', () => {
  assert.deepEqual(upwardImports(importGraph()), []);
});

test('the layer check sees an import from the low layer up to a feature, and none the other way', () => {
  const graph = new Map<string, Set<string>>([
    ['src/errors.ts', new Set(['src/problem.ts'])],
    ['src/http/error-handler.ts', new Set(['src/errors.ts', 'src/error-codes.ts'])],
    ['src/db/connect.ts', new Set(['src/sites/queries.ts'])],
    ['src/http/etag.test.ts', new Set(['src/app.ts'])],
    ['src/sites/routes.ts', new Set(['src/http/schema.ts', 'src/errors.ts'])],
  ]);
  assert.deepEqual(upwardImports(graph), ['src/http/error-handler.ts -> src/error-codes.ts', 'src/db/connect.ts -> src/sites/queries.ts']);
});
