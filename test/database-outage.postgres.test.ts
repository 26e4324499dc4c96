import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { buildTestApp, createSite, signUp, STRONG_PASSWORD } from './helpers.js';
import { until } from './wait.js';
import { freePort } from './processes.js';

const POSTGRES_SCRIPT = fileURLToPath(new URL('../../scripts/ci/postgres.sh', import.meta.url));

function postgres(action: 'start' | 'stop', dir: string, port?: number): string {
  return execFileSync('bash', [POSTGRES_SCRIPT, action, dir, ...(port === undefined ? [] : [String(port)])], { encoding: 'utf8' }).trim();
}

interface LogLine {
  level: number;
  msg: string;
  err?: { message?: string };
  [field: string]: unknown;
}

test('a PostgreSQL outage is logged once, not once per refused request, and its end is logged too', async () => {
  const pgDir = mkdtempSync(path.join(tmpdir(), 'siteward-pg-outage-'));
  const pgPort = await freePort();
  const databaseUrl = postgres('start', pgDir, pgPort);
  // Probed often, so that the end of the outage is seen within the test's patience.
  const t = await buildTestApp({ databaseUrl, databaseOutage: { probeIntervalMs: 100 } });
  try {
    const user = await signUp(t.app);
    const site = await createSite(t.app, user.bearer, { name: 'Outage' });
    // The sign-up's verification mail is sent after its answer: its log line must not fall into the outage's.
    await t.mailer.idle();
    assert.ok(t.logs().includes('mail delivered'), 'the sign-up mailed its verification link');
    const before = t.logs().length;

    postgres('stop', pgDir);
    const requests = [
      () => t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer } }),
      () => t.app.inject({ method: 'PUT', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer }, payload: { name: 'Down' } }),
      () => t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD } }),
      () => t.app.inject({ method: 'GET', url: '/api/v1/sites', headers: { authorization: user.bearer } }),
    ];
    const statuses = new Map<number, number>();
    // 200 requests, 20 at a time.
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) => {
          const request = requests[index % requests.length];
          assert.ok(request !== undefined);
          return request();
        }),
      );
      for (const answer of answers) statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
    }
    assert.deepEqual([...statuses], [[503, 200]]);

    const during = t.logs().slice(before).trim().split('\n').map((line) => JSON.parse(line) as LogLine);
    const outageLines = during.filter((line) => line.msg.startsWith('database unavailable'));
    assert.equal(outageLines.length, 1, `${outageLines.length} outage lines`);
    assert.ok(outageLines[0]?.err?.message !== undefined, 'the outage line carries the error');
    // The cache says once that it stopped, if its listening connection noticed in time.
    const cacheOff = during.filter((line) => line.msg.startsWith('cache off'));
    assert.ok(cacheOff.length <= 1, `${cacheOff.length} cache-off lines`);
    // Everything else is the ordinary request line, one per request; no other line carries an error.
    const others = during.filter((line) => line !== outageLines[0] && !cacheOff.includes(line) && line.msg !== 'request');
    assert.deepEqual(others.map((line) => line.msg), [], JSON.stringify(others));
    assert.equal(during.filter((line) => line.err !== undefined && !cacheOff.includes(line)).length, 1);

    const afterOutage = t.logs().length;
    postgres('start', pgDir, pgPort);
    await until(() => t.logs().slice(afterOutage).includes('database answers again'), 'the database to answer again', { timeoutMs: 20_000, intervalMs: 100 });
    const recovery = t.logs().slice(afterOutage).trim().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as LogLine);
    const recoveryLines = recovery.filter((line) => line.msg === 'database answers again');
    assert.equal(recoveryLines.length, 1, t.logs().slice(afterOutage));
    assert.equal(recoveryLines[0]?.refused, 200);
    const read = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${site.id}`, headers: { authorization: user.bearer } });
    assert.equal(read.statusCode, 200);
  } finally {
    await t.close();
    postgres('stop', pgDir);
    rmSync(pgDir, { recursive: true, force: true });
  }
});
