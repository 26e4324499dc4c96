import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Reading the import graph from the sources, for the tests that hold its shape: the compiler here
// (TypeScript 7) has no JavaScript API for tools such as madge or dpdm to use.

/** The checkout's root, from the compiled test's place in dist/test. */
export const repository = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

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
const DECLARATION = /^(?:(?:import|export)\b[^;'"]*?\bfrom\s*|import\s*)['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** What source text imports, as written: its static declarations (type-only ones too) and dynamic import()s. */
export function specifiersIn(text: string): string[] {
  return [...text.matchAll(DECLARATION), ...text.matchAll(DYNAMIC)].map((match) => match[1] ?? '');
}

/** What a file imports, as specifiersIn reads it. */
export function importSpecifiers(file: string): string[] {
  return specifiersIn(readFileSync(file, 'utf8'));
}
