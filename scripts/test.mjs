// Runs every compiled *.test.js under dist/ with node's test runner.
// Arguments narrow the run to files whose path contains one of them: `npm test -- sites`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function findTests(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return findTests(full);
    return entry.endsWith('.test.js') ? [full] : [];
  });
}

const filters = process.argv.slice(2);
// *.postgres.test.js files drive a PostgreSQL server of their own (they restart it): they run in
// the PostgreSQL run only, where the server's binaries are known to be installed.
const withPostgres = (process.env.TEST_DATABASE_URL ?? '') !== '';
// Only tests whose TypeScript source still exists: a deleted test leaves no stale run behind.
const files = findTests('dist')
  .filter((file) => existsSync(path.relative('dist', file).replace(/\.js$/, '.ts')))
  .filter((file) => withPostgres || !file.endsWith('.postgres.test.js'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
