// Runs the dashboard's unit tests (web/src/**/*.test.ts, Vitest), then every compiled *.test.js
// under dist/ with node's test runner; any failure fails the run.
// Arguments narrow the run to files whose path contains one of them: `npm test -- sites`.
// With TEST_DATABASE_URL (PostgreSQL) the run is the database pass: only the tests that reach a
// database, since the others (browser, nginx, bench, pure unit tests, the dashboard's) would
// repeat the SQLite run's work exactly.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

function findTests(dir, suffix = '.test.js') {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return findTests(full, suffix);
    return entry.endsWith(suffix) ? [full] : [];
  });
}

const filters = process.argv.slice(2);

// What a test opens, read off the compiled imports: a test reaches a database when the database
// module, the test app (test/helpers.js) or the real server process (test/processes.js) is among
// them. The browser, nginx, bench and contract-drift tests start the app too, but they test what
// the database does not change (the dashboard, the cache in front, the benchmark's harness, the
// types): they run once, on SQLite. So does a test file whose source says so in a line of its own
// beginning `// Runs once, on SQLite:` followed by why no database could change what it checks.
const DATABASE_MODULES = ['dist/src/db/connect.js', 'dist/test/helpers.js', 'dist/test/processes.js'].map((file) => path.normalize(file));
const SQLITE_ONCE = [path.join('dist', 'e2e') + path.sep, path.join('dist', 'bench') + path.sep, path.join('dist', 'test', 'contract-drift.test.js')];
const importsOf = new Map();
function relativeImports(file) {
  let found = importsOf.get(file);
  if (found === undefined) {
    const text = readFileSync(file, 'utf8');
    found = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => path.normalize(path.join(path.dirname(file), match[1])));
    importsOf.set(file, found);
  }
  return found;
}
const RUNS_ONCE = /^\/\/ Runs once, on SQLite: \S/m;
function reachesDatabase(testFile) {
  if (testFile.endsWith('.postgres.test.js')) return true;
  if (testFile.endsWith('.nginx.test.js') || SQLITE_ONCE.some((prefix) => testFile.startsWith(prefix))) return false;
  if (RUNS_ONCE.test(readFileSync(path.relative('dist', testFile).replace(/\.js$/, '.ts'), 'utf8'))) return false;
  const seen = new Set();
  const pending = [testFile];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file) || !existsSync(file)) continue;
    if (DATABASE_MODULES.includes(file)) return true;
    seen.add(file);
    pending.push(...relativeImports(file));
  }
  return false;
}
// *.postgres.test.js files test what only PostgreSQL does, some on a server of their own (they
// restart it): they run in the PostgreSQL run only, where the server's binaries are installed.
const withPostgres = (process.env.TEST_DATABASE_URL ?? '') !== '';
// The browser tests (dist/e2e/) drive Debian's Chromium. They run where it is installed, and always
// with SITEWARD_BROWSER_TESTS=1 (CI), where a missing browser is a failure; elsewhere the run says
// that they were left out, so `npm test` needs nothing but Node.
// SITEWARD_BROWSER_TESTS=0 leaves them out even where Chromium is (CI's run on another Node.js version).
const withBrowser = process.env.SITEWARD_BROWSER_TESTS === '1' || (process.env.SITEWARD_BROWSER_TESTS !== '0' && existsSync('/usr/bin/chromium'));
if (!withBrowser) console.log('note: the browser tests (e2e/) are not run: /usr/bin/chromium is missing (apt-get install chromium)');
// *.nginx.test.js files put Debian's nginx in front of the app: likewise, where it is installed,
// and always with SITEWARD_NGINX_TESTS=1 (CI).
const withNginx = process.env.SITEWARD_NGINX_TESTS === '1' || (process.env.SITEWARD_NGINX_TESTS !== '0' && existsSync('/usr/sbin/nginx'));
if (!withNginx) console.log('note: the nginx tests (*.nginx.test.ts) are not run: /usr/sbin/nginx is missing (apt-get install nginx)');
// Only tests whose TypeScript source still exists: a deleted test leaves no stale run behind.
const files = findTests('dist')
  .filter((file) => existsSync(path.relative('dist', file).replace(/\.js$/, '.ts')))
  .filter((file) => withPostgres || !file.endsWith('.postgres.test.js'))
  .filter((file) => withBrowser || !file.startsWith(path.join('dist', 'e2e')))
  .filter((file) => withNginx || !file.endsWith('.nginx.test.js'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .filter((file) => !withPostgres || reachesDatabase(file))
  .sort();
const webUnitTests = withPostgres ? [] : findTests('web/src', '.test.ts').filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));
if (withPostgres) console.log(`note: the PostgreSQL pass runs the ${files.length} test files that reach a database; the rest run on SQLite only`);
if (files.length === 0 && webUnitTests.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Test files at once: as many as the cores. The run is CPU-bound (the browsers' processes above
// all): a third file at once on two cores left the SQLite pass's time where it was.
// TEST_CONCURRENCY sets another number.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? '') > 0 ? Number(process.env.TEST_CONCURRENCY) : availableParallelism();
let status = 0;
if (webUnitTests.length > 0) {
  const vitest = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'web/vitest.config.ts', ...webUnitTests.map((file) => path.relative('web', file))], {
    stdio: 'inherit',
    env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
  });
  status = vitest.status ?? 1;
}
if (files.length > 0) {
  const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-file-times.mjs', '--test-reporter-destination=stdout', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' });
  if (status === 0) status = result.status ?? 1;
}
process.exit(status);
