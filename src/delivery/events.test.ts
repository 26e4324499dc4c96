import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { EventStreamClient } from '../../test/event-stream.js';
import { buildTestApp, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { openDatabase } from '../db/connect.js';
import { SETTINGS_MAX_BYTES } from '../sites/contract.js';
import { SITE_ERRORS } from '../sites/errors.js';
import { DELIVERY_ERRORS } from './errors.js';
import type { PublicConfigJson } from './schema.js';

// GET /public/v1/sites/{public_key}/events over real HTTP, on SQLite and (with TEST_DATABASE_URL)
// PostgreSQL. One app for most tests (heartbeats every 100 ms, a small bound on unread bytes);
// the stream cap, closing and the cache turned off get apps of their own.

const HEARTBEAT_MS = 100;
const MAX_BUFFERED_BYTES = 256 * 1024;

interface Running {
  t: TestApp;
  base: string;
  owner: SignedUpUser;
}

async function start(env: Record<string, string> = {}): Promise<Running> {
  const t = await buildTestApp({ env, delivery: { heartbeatMs: HEARTBEAT_MS, pollIntervalMs: 50, databasePollIntervalMs: 50, maxBufferedBytes: MAX_BUFFERED_BYTES } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, owner: await signUp(t.app) };
}

let shared: Running;
before(async () => {
  // Every stream of these tests comes from 127.0.0.1: the bound per address is raised past what one test opens.
  shared = await start({ PUBLIC_STREAMS_PER_ADDRESS: '100' });
});
after(async () => {
  await shared.t.close();
});

async function put(running: Running, siteId: string, payload: Record<string, unknown>): Promise<void> {
  const response = await running.t.app.inject({ method: 'PUT', url: `/api/v1/sites/${siteId}`, headers: { authorization: running.owner.bearer }, payload });
  assert.equal(response.statusCode, 200, response.body);
}

async function newSite(running: Running, name: string): Promise<{ id: string; key: string }> {
  const site = await createSite(running.t.app, running.owner.bearer, { name });
  return { id: site.id, key: String(site.public_key) };
}

function events(running: Running, key: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
  return EventStreamClient.open(`${running.base}/public/v1/sites/${key}/events`, headers);
}

async function publicBody(running: Running, key: string): Promise<string> {
  return (await fetch(`${running.base}/public/v1/sites/${key}`)).text();
}

describe('a public configuration as events', () => {
  test('the configuration at once, with the version as its id and the same JSON as the GET; then each new version', async () => {
    const site = await newSite(shared, 'Live');
    const stream = await events(shared, site.key, { origin: 'https://customer.example' });
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(stream.headers['cache-control'], 'no-store');
      assert.equal(stream.headers['x-accel-buffering'], 'no');
      assert.equal(stream.headers['access-control-allow-origin'], '*');
      assert.equal(stream.headers['set-cookie'], undefined);
      const first = await stream.event(0);
      assert.deepEqual([first.event, first.id], ['config', '1']);
      assert.equal(first.data, await publicBody(shared, site.key));
      assert.equal(stream.retry, 3000);

      await put(shared, site.id, { name: 'Live, renamed', widget: '{"greeting":"Hi"}' });
      const second = await stream.event(1);
      assert.deepEqual([second.event, second.id], ['config', '2']);
      assert.equal(second.data, await publicBody(shared, site.key));
      assert.deepEqual((JSON.parse(second.data) as PublicConfigJson).site.widget, { greeting: 'Hi' });
      // A change to a setting the public never sees is still a new version, told as one.
      await put(shared, site.id, { ai_settings: '{"model":"secret-model"}' });
      const third = await stream.event(2);
      assert.equal(third.id, '3');
      assert.ok(!third.data.includes('secret-model'));
      await stream.commentsReach(2);
      assert.equal(stream.events.length, 3, 'heartbeats are comments, not events');
    } finally {
      stream.close();
    }
  });

  test('Last-Event-ID naming the current version sends nothing until the next change; any other value, garbage too, the configuration at once', async () => {
    const site = await newSite(shared, 'Resumed');
    const current = await events(shared, site.key, { 'last-event-id': '1' });
    const others = await Promise.all(['0', '2', 'abc', '-1', ' ', '1.0', '99999999999999999999999', 'x'.repeat(4000), '1\u0000'].map((id) => events(shared, site.key, { 'last-event-id': encodeURI(id) })));
    try {
      for (const other of others) assert.equal((await other.event(0)).id, '1');
      await current.commentsReach(2);
      assert.equal(current.events.length, 0, 'the client holds this version already');
      await put(shared, site.id, { name: 'Resumed, changed' });
      assert.equal((await current.event(0)).id, '2');
    } finally {
      for (const stream of [current, ...others]) stream.close();
    }
  });

  test('many streams of one site and of others each get their own site’s change, once', async () => {
    const [a, b] = [await newSite(shared, 'A'), await newSite(shared, 'B')];
    const streamsOfA = await Promise.all(Array.from({ length: 20 }, () => events(shared, a.key)));
    const streamOfB = await events(shared, b.key);
    try {
      await Promise.all([...streamsOfA, streamOfB].map((stream) => stream.event(0)));
      await put(shared, a.id, { name: 'A, changed' });
      for (const stream of streamsOfA) assert.equal((await stream.event(1)).id, '2');
      await streamOfB.commentsReach(3);
      assert.equal(streamOfB.events.length, 1, 'B did not change');
      for (const stream of streamsOfA) assert.equal(stream.events.length, 2);
    } finally {
      for (const stream of [...streamsOfA, streamOfB]) stream.close();
    }
  });

  test('a change committed by another process reaches the stream through the change feed', async () => {
    const site = await newSite(shared, 'Elsewhere');
    const stream = await events(shared, site.key);
    // Another app server's commit, as this one sees it: on another connection, which tells this
    // process nothing directly (SQLite: the data_version counter; PostgreSQL: the triggers' NOTIFY).
    const other = openDatabase(shared.t.config.database);
    try {
      await stream.event(0);
      await other.db.updateTable('sites').set({ name: 'Changed elsewhere', version: 2 }).where('id', '=', site.id).execute();
      const changed = await stream.event(1);
      assert.equal(changed.id, '2');
      assert.equal((JSON.parse(changed.data) as PublicConfigJson).site.name, 'Changed elsewhere');
    } finally {
      stream.close();
      await other.close();
    }
  });

  test('a trashed site’s streams end, and new ones are 404; a rotated key streams until its overlap ends', async () => {
    const trashed = await newSite(shared, 'Trashed');
    const stream = await events(shared, trashed.key);
    await stream.event(0);
    const deleted = await shared.t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${trashed.id}`, headers: { authorization: shared.owner.bearer } });
    assert.equal(deleted.statusCode, 204);
    await stream.closes();
    assert.ok(stream.ended, 'ended cleanly');
    const refused = await events(shared, trashed.key);
    assert.equal(refused.status, 404);
    assert.equal((JSON.parse(await new Promise<string>((resolve) => refused.closes().then(() => resolve(refused.body())))) as { code: string }).code, SITE_ERRORS.SITE_NOT_FOUND);

    const rotated = await newSite(shared, 'Rotated');
    const onOldKey = await events(shared, rotated.key);
    await onOldKey.event(0);
    const answer = await shared.t.app.inject({ method: 'POST', url: `/api/v1/sites/${rotated.id}/public-key/rotate`, headers: { authorization: shared.owner.bearer } });
    assert.equal(answer.statusCode, 200);
    assert.equal((await onOldKey.event(1)).id, '2', 'the rotation is a new version of the site');
    await put(shared, rotated.id, { name: 'Rotated, changed' });
    assert.equal((await onOldKey.event(2)).id, '3', 'the old key still streams during the overlap');
    shared.t.clock.advance(24 * 60 * 60 * 1000);
    await onOldKey.closes();
    assert.ok(onOldKey.ended);
  });

  test('bad requests are clear problems; a client that never reads is dropped, and the others are not held back', async () => {
    const invalid = await events(shared, 'spk_nope');
    assert.equal(invalid.status, 400);
    await invalid.closes();
    assert.equal((JSON.parse(invalid.body()) as { code: string }).code, DELIVERY_ERRORS.INVALID_PUBLIC_KEY);
    const unknown = await events(shared, 'spk_000000000000000000000000');
    assert.equal(unknown.status, 404);
    const site = await newSite(shared, 'Large and busy');
    const withQuery = await EventStreamClient.open(`${shared.base}/public/v1/sites/${site.key}/events?since=1`);
    assert.equal(withQuery.status, 400);
    for (const client of [unknown, withQuery]) client.close();

    const sleeper = await events(shared, site.key);
    const reader = await events(shared, site.key);
    try {
      await sleeper.event(0);
      sleeper.reading(false);
      const group = (n: number) => JSON.stringify({ text: `${n} `.repeat(SETTINGS_MAX_BYTES / 2 - 100).slice(0, SETTINGS_MAX_BYTES - 100) });
      let changes = 0;
      const dropped = () => shared.t.logs().includes('public event stream dropped');
      // Each event is about 256 KiB; the kernel's socket buffers take some megabytes before the
      // server's own buffer fills past the bound. A client that reads nothing cannot see its
      // connection go either: the server's log says so, and the client learns it once it reads.
      while (!dropped() && changes < 400) {
        changes++;
        await put(shared, site.id, { widget: group(changes), portal: group(changes), branding: group(changes), public_theme: group(changes) });
        await reader.event(changes);
      }
      assert.ok(dropped(), `the server still held a client that read nothing after ${changes} events`);
      sleeper.reading(true);
      await sleeper.closes();
      assert.ok(sleeper.events.length < changes + 1, 'the dropped client missed versions');
      assert.ok(!reader.closed);
      assert.equal(reader.events.at(-1)?.id, String(changes + 1), 'the reading client got every version');
    } finally {
      sleeper.close();
      reader.close();
    }
  });
});

describe('bounds and shutdown', () => {
  test('at most PUBLIC_STREAMS_MAX streams, counted before the site is read: past it, 503 with Retry-After', async () => {
    const running = await start({ PUBLIC_STREAMS_MAX: '3' });
    const opened: EventStreamClient[] = [];
    try {
      const site = await newSite(running, 'Capped');
      // Fired together: exactly three get in.
      const attempts = await Promise.all(Array.from({ length: 8 }, () => events(running, site.key)));
      opened.push(...attempts);
      const statuses = attempts.map((attempt) => attempt.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 503, 503, 503, 503, 503]);
      const refused = attempts.find((attempt) => attempt.status === 503);
      assert.equal(refused?.headers['retry-after'], '10');
      await refused?.closes();
      assert.equal((JSON.parse(refused?.body() ?? '{}') as { code: string }).code, DELIVERY_ERRORS.TOO_MANY_STREAMS);
      // A refused key or an unknown site frees its place at once.
      assert.equal((await events(running, 'spk_000000000000000000000000')).status, 503, 'the bound is counted before the site is read');
      // One closes: its place is free again.
      const open = attempts.filter((attempt) => attempt.status === 200);
      open[0]?.close();
      await open[0]?.closes();
      let again = await events(running, site.key);
      // The server may see the close a moment after the client does.
      while (again.status === 503) {
        again.close();
        await new Promise((resolve) => setImmediate(resolve));
        again = await events(running, site.key);
      }
      opened.push(again);
      assert.equal(again.status, 200);
      assert.equal((await events(running, site.key)).status, 503);
    } finally {
      for (const stream of opened) stream.close();
      await running.t.close();
    }
  });

  test('at most PUBLIC_STREAMS_PER_ADDRESS streams per client address as read behind TRUST_PROXY: past it, 503 with Retry-After; other addresses still get theirs', async () => {
    const running = await start({ PUBLIC_STREAMS_PER_ADDRESS: '3', TRUST_PROXY: '127.0.0.1' });
    const opened: EventStreamClient[] = [];
    const from = async (address: string, key: string): Promise<EventStreamClient> => {
      const stream = await events(running, key, { 'x-forwarded-for': address });
      opened.push(stream);
      return stream;
    };
    try {
      const [site, other] = [await newSite(running, 'One address'), await newSite(running, 'Another site')];
      // Fired together from one address, to two sites: exactly three get in.
      const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => from('203.0.113.7', i % 2 === 0 ? site.key : other.key)));
      assert.deepEqual(attempts.map((attempt) => attempt.status).sort(), [200, 200, 200, 503, 503, 503]);
      const refused = attempts.find((attempt) => attempt.status === 503);
      assert.equal(refused?.headers['retry-after'], '10');
      assert.match(String(refused?.headers['content-type']), /^application\/problem\+json/);
      await refused?.closes();
      assert.equal((JSON.parse(refused?.body() ?? '{}') as { code: string }).code, DELIVERY_ERRORS.TOO_MANY_STREAMS);
      // Other addresses, behind the proxy or not, are not held back by it.
      const elsewhere = await from('198.51.100.9', site.key);
      assert.equal(elsewhere.status, 200);
      assert.equal((await elsewhere.event(0)).event, 'config');
      const direct = await events(running, site.key);
      opened.push(direct);
      assert.equal(direct.status, 200);
      // One of the address's streams closes: its place is the address's again, and only that one.
      const open = attempts.filter((attempt) => attempt.status === 200);
      open[0]?.close();
      await open[0]?.closes();
      let again = await from('203.0.113.7', site.key);
      // The server may see the close a moment after the client does.
      while (again.status === 503) {
        again.close();
        await new Promise((resolve) => setImmediate(resolve));
        again = await from('203.0.113.7', site.key);
      }
      assert.equal(again.status, 200);
      assert.equal((await from('203.0.113.7', site.key)).status, 503);
    } finally {
      for (const stream of opened) stream.close();
      await running.t.close();
    }
  });

  test('closing the server ends every stream cleanly, and the close does not wait for them', async () => {
    const running = await start();
    const site = await newSite(running, 'Closing');
    const streams = await Promise.all(Array.from({ length: 5 }, () => events(running, site.key)));
    await Promise.all(streams.map((stream) => stream.event(0)));
    await running.t.close();
    for (const stream of streams) {
      await stream.closes();
      assert.ok(stream.ended, 'the response was ended, not cut');
    }
  });

  test('with the cache off, changes still reach the streams: the versions are polled', async () => {
    const running = await start({ CACHE_MB: '0' });
    const other = openDatabase(running.t.config.database);
    try {
      const site = await newSite(running, 'Uncached');
      const stream = await events(running, site.key);
      await stream.event(0);
      await put(running, site.id, { name: 'Uncached, changed here' });
      assert.equal((await stream.event(1)).id, '2');
      await other.db.updateTable('sites').set({ name: 'Uncached, changed elsewhere', version: 3 }).where('id', '=', site.id).execute();
      assert.equal((await stream.event(2)).id, '3');
      stream.close();
    } finally {
      await other.close();
      await running.t.close();
    }
  });
});

