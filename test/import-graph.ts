import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The graph of the sources' imports, read from the text: the compiler here (TypeScript 7) has no
// JavaScript API for tools such as madge or dpdm to use. Type-only imports count too: a reader
// follows them like any other.
export const repository = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
export const ROOTS = ['src', 'web/src'];
/** The dashboard's name for the server's sources (web/tsconfig.json, web/vite.config.ts). */
export const SERVER_ALIAS = '@server/';

/** Every TypeScript source below a folder, declaration files left out. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const full = path.join(folder, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') ? [full] : [];
  });
}

// Declarations start a line in this code base; dynamic import() may appear anywhere.
export const DECLARATION = /^(?:(?:import|export)\b[^;'"]*?\bfrom\s*|import\s*)['"]([^'"]+)['"]/gm;
export const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** What a file imports, as written: its static declarations (type-only ones too) and dynamic import()s. */
export function importSpecifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(DECLARATION), ...text.matchAll(DYNAMIC)].map((match) => match[1] ?? '');
}

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

/** Each source file of the server and the dashboard (relative to the repository) and the files it imports. */
export function importGraph(): Map<string, Set<string>> {
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
