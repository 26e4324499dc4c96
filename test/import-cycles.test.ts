import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { importSpecifiers, repository, SERVER_ALIAS, sourceFiles, specifiersIn } from './source-imports.js';

// No file of the server or the dashboard may reach itself through its imports: a cycle makes
// load order matter and leaves no file that can be read first. Type-only imports count too, since
// a cycle of types is the same tangle for a reader.
const ROOTS = ['src', 'web/src'];

function resolve(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith(SERVER_ALIAS)) base = path.join(repository, 'src', specifier.slice(SERVER_ALIAS.length));
  else if (specifier.startsWith('.')) base = path.resolve(path.dirname(from), specifier);
  else return undefined; // a package
  const stem = base.replace(/\.js$/, '');
  const found = [`${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, path.join(stem, 'index.ts'), base].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  assert.ok(found !== undefined, `${path.relative(repository, from)} imports ${specifier}, which resolves to no file`);
  return /\.tsx?$/.test(found) ? found : undefined; // a stylesheet or other asset
}

function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of ROOTS.flatMap((root) => sourceFiles(path.join(repository, root)))) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(file)) {
      const target = resolve(file, specifier);
      if (target !== undefined) targets.add(path.relative(repository, target));
    }
    graph.set(path.relative(repository, file), targets);
  }
  return graph;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file) === true) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

function describe(component: string[], graph: Map<string, Set<string>>): string {
  const members = new Set(component);
  const edges = component.flatMap((file) => [...(graph.get(file) ?? [])].filter((target) => members.has(target)).map((target) => `  ${file} -> ${target}`));
  return edges.join('\n');
}

test('no source file of the server or the dashboard imports itself back through other files', () => {
  const graph = importGraph();
  assert.deepEqual(cycles(graph).map((component) => describe(component, graph)), [], 'import cycles');
});

/**
 * The feature a file belongs to: its folder under src/ or web/src/ (a file directly under either is
 * a feature of its own). Tests are left out: they sit beside their feature but drive the whole
 * application. One exception keeps the picture honest: a shared file directly under src/ (the
 * list of every error code) or the dashboard may name a feature's import-free file (its error codes
 * or enums) without depending on the feature, so there the file is a node by itself. A feature that
 * borrows another's import-free file depends on that feature like any other import.
 */
function featureGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const featureOf = (file: string): string => {
    const root = ROOTS.find((candidate) => file.startsWith(`${candidate}/`)) ?? '';
    const [first = file, ...rest] = file.slice(root.length + 1).split('/');
    return rest.length > 0 ? `${root}/${first}/` : file;
  };
  const namesWithoutDepending = (file: string): boolean => file.startsWith('web/src/') || featureOf(file) === file;
  const features = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    if (/\.test\.tsx?$/.test(file)) continue;
    const from = featureOf(file);
    const edges = features.get(from) ?? new Set<string>();
    features.set(from, edges);
    for (const target of targets) {
      const to = (files.get(target)?.size ?? 0) === 0 && namesWithoutDepending(file) ? target : featureOf(target);
      if (to !== from) edges.add(to);
    }
  }
  return features;
}

test('no feature imports itself back through other features', () => {
  const graph = featureGraph(importGraph());
  assert.deepEqual(cycles(graph).map((component) => describe(component, graph)), [], 'cycles between features');
});

test('the feature graph groups files by folder; only the error-code list and the dashboard name an import-free file without depending on its folder', () => {
  const files = new Map<string, Set<string>>([
    ['src/auth/guard.ts', new Set(['src/users/queries.ts', 'src/auth/errors.ts'])],
    ['src/auth/errors.ts', new Set()],
    ['src/users/queries.ts', new Set(['src/error-codes.ts'])],
    ['src/error-codes.ts', new Set(['src/auth/errors.ts'])],
    ['src/users/users.test.ts', new Set(['src/auth/guard.ts'])],
    ['web/src/pages/Sites.tsx', new Set(['web/src/api.ts', 'src/auth/errors.ts'])],
    ['web/src/api.ts', new Set(['src/error-codes.ts'])],
  ]);
  const graph = featureGraph(files);
  assert.deepEqual(cycles(graph), []);
  assert.deepEqual([...(graph.get('src/auth/') ?? [])].sort(), ['src/users/']);
  assert.deepEqual([...(graph.get('src/error-codes.ts') ?? [])].sort(), ['src/auth/errors.ts']);
  assert.deepEqual([...(graph.get('web/src/pages/') ?? [])].sort(), ['src/auth/errors.ts', 'web/src/api.ts']);
  // A feature's own code reaching back is a cycle, although each file's imports are acyclic.
  files.set('src/users/service.ts', new Set(['src/auth/guard.ts']));
  assert.deepEqual(cycles(featureGraph(files)), [['src/auth/', 'src/users/']]);
  // So is a feature borrowing another's import-free list of codes while that feature imports it.
  files.delete('src/users/service.ts');
  files.set('src/users/errors-use.ts', new Set(['src/auth/errors.ts']));
  assert.deepEqual(cycles(featureGraph(files)), [['src/auth/', 'src/users/']]);
});

test('the cycle check sees a cycle, including one through type-only imports', () => {
  const graph = new Map<string, Set<string>>([
    ['a.ts', new Set(['b.ts'])],
    ['b.ts', new Set(['c.ts'])],
    ['c.ts', new Set(['a.ts'])],
    ['d.ts', new Set(['a.ts'])],
  ]);
  assert.deepEqual(cycles(graph), [['a.ts', 'b.ts', 'c.ts']]);
  // The walk finds edges from the text as written: a type-only import back is an edge like any other.
  const text = "import type { Principal } from './guard.js';\nexport type { X } from './x.js';\nimport './side-effect.js';\nconst lazy = () => import('./later.js');";
  assert.deepEqual(specifiersIn(text), ['./guard.js', './x.js', './side-effect.js', './later.js']);
});
