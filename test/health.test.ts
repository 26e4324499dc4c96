import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from './helpers.js';

test('/healthz answers while the process runs; /readyz answers 503 once the database is gone', async () => {
  const t = await buildTestApp();
  try {
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ok' });

    await t.database.close();
    const lost = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(lost.statusCode, 503);
    assert.equal(lost.json().code, 'database_unavailable');
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  } finally {
    await t.close();
  }
});

test('an unknown route is a 404 problem document, not an HTML page', async () => {
  const t = await buildTestApp();
  try {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here?token=secret' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(response.json().code, 'route_not_found');
    assert.ok(!response.body.includes('secret'));
  } finally {
    await t.close();
  }
});
