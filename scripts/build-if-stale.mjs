// Builds the project (`npm run build`) only when its sources differ from those of the last
// successful build, so `npm start`, `npm test` and `npm run cli` on a built tree start at once
// instead of type-checking everything again. The sources are compared by content, not by time: a
// checkout, a copy or `npm prune` touches files without changing them. `npm run build` records them
// as its last step (`--mark-built`), so an interrupted or failed build is redone next time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(repository, 'dist', '.build-stamp');
// What `npm run build` reads. web/src/api/schema.d.ts is its own output, so it is left out.
const inputs = ['src', 'test', 'bench', 'e2e', 'web', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];
const generated = new Set([path.join(repository, 'web', 'src', 'api', 'schema.d.ts')]);

function addFiles(entry, hash) {
  if (generated.has(entry) || path.basename(entry) === 'node_modules' || !existsSync(entry)) return;
  if (statSync(entry).isDirectory()) {
    for (const child of readdirSync(entry).sort()) addFiles(path.join(entry, child), hash);
    return;
  }
  hash.update(path.relative(repository, entry)).update('\0').update(readFileSync(entry)).update('\0');
}

function sourcesDigest() {
  const hash = createHash('sha256');
  for (const input of inputs) addFiles(path.join(repository, input), hash);
  return hash.digest('hex');
}

if (process.argv.includes('--mark-built')) {
  writeFileSync(stamp, `${sourcesDigest()}\n`);
} else if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== sourcesDigest()) {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: repository, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
