import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { until } from './wait.js';
import { callJson as call, signUpOn, startServerPair } from './processes.js';

/**
 * Scheduled change requests with real app processes: two servers on one database (PostgreSQL when
 * TEST_DATABASE_URL is set, else one SQLite file), both looking for due requests every second.
 */

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Request {
  id: string;
  status: string;
  applied_version: number | null;
}

test('two app servers: requests scheduled for the same moment are each applied exactly once', async () => {
  const { a, b, close } = await startServerPair();
  cleanups.push(close);
  const authorization = (await signUpOn(a)).bearer;

  // Three sites, two requests each on different paths, all due at one moment a little ahead.
  const SITES = 3;
  const scheduled: Array<{ site: string; request: string }> = [];
  for (let index = 0; index < SITES; index++) {
    const site = await call<{ site: { id: string } }>(index % 2 === 0 ? a : b, 'POST', '/api/v1/sites', authorization, { name: `Site ${index}` });
    assert.equal(site.status, 201);
    for (const field of ['ai_settings', 'widget']) {
      const opened = await call<{ change_request: Request }>(a, 'POST', `/api/v1/sites/${site.json.site.id}/change-requests`, authorization, { title: `${field} ${index}`, changes: { [field]: `scheduled ${field}` } });
      assert.equal(opened.status, 201, JSON.stringify(opened.json));
      scheduled.push({ site: site.json.site.id, request: opened.json.change_request.id });
    }
  }
  // Scheduled once every request exists, for a moment just after the last is scheduled.
  const at = new Date(Date.now() + 3_000).toISOString();
  await Promise.all(
    scheduled.map(async ({ site, request }, index) => {
      const applied = await call<{ change_request: Request }>(index % 2 === 0 ? a : b, 'POST', `/api/v1/sites/${site}/change-requests/${request}/apply`, authorization, { at });
      assert.equal(applied.status, 200, JSON.stringify(applied.json));
      assert.equal(applied.json.change_request.status, 'scheduled');
    }),
  );

  // Waits for the event: every request applied (both servers look every second).
  let states: string[] = [];
  await until(
    async () => {
      states = await Promise.all(scheduled.map(async ({ site, request }) => (await call<{ change_request: Request }>(a, 'GET', `/api/v1/sites/${site}/change-requests/${request}`, authorization)).json.change_request.status));
      return states.every((state) => state === 'applied');
    },
    () => `every request applied, still ${states.join(', ')}`,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  for (const site of new Set(scheduled.map((entry) => entry.site))) {
    const versions = await call<{ versions: Array<{ version: number; via: { change_request?: { id: string } } }> }>(b, 'GET', `/api/v1/sites/${site}/versions`, authorization);
    // Created, then one version per request: none applied twice, none lost.
    assert.deepEqual(versions.json.versions.map((version) => version.version), [3, 2, 1]);
    const requests = versions.json.versions.flatMap((version) => (version.via.change_request === undefined ? [] : [version.via.change_request.id]));
    assert.deepEqual(new Set(requests), new Set(scheduled.filter((entry) => entry.site === site).map((entry) => entry.request)));
    const current = await call<{ site: { ai_settings: string; widget: string } }>(a, 'GET', `/api/v1/sites/${site}`, authorization);
    assert.deepEqual([current.json.site.ai_settings, current.json.site.widget], ['scheduled ai_settings', 'scheduled widget']);
  }
});
