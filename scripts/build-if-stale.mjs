// Builds the project (`npm run build`) only when a source is newer than the last successful build,
// so `npm start`, `npm test` and `npm run cli` on a built tree start at once instead of type-checking
// everything again. The build's inputs are the tracked sources below; the stamp is written after a
// build that succeeded, so an interrupted or failed one is redone next time.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(repository, 'dist', '.build-stamp');
// What `npm run build` reads. web/src/api/schema.d.ts is its own output, so it is left out.
const inputs = ['src', 'test', 'bench', 'e2e', 'web', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];
const generated = new Set([path.join(repository, 'web', 'src', 'api', 'schema.d.ts')]);

function newestChange(entry) {
  if (generated.has(entry) || path.basename(entry) === 'node_modules') return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestChange(path.join(entry, child)));
  return newest;
}

function isStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return inputs.some((input) => {
    const full = path.join(repository, input);
    return existsSync(full) && newestChange(full) > built;
  });
}

if (isStale()) {
  const started = Date.now();
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: repository, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  writeFileSync(stamp, `built in ${Date.now() - started} ms\n`);
}
