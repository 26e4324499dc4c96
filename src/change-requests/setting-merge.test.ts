import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, createSite, type SignedUpUser, signUp, type TestApp } from '../../test/helpers.js';
import { HTTP_ERRORS } from '../http/errors.js';
import { CHANGE_REQUEST_ERRORS } from './errors.js';
import type { ChangeRequestJson } from './schema.js';

// Change requests merge settings groups setting by setting: two requests that change different
// settings of one group both land, one setting changed on both sides is the conflict (and only
// it), settled by its own path; proposals stored with whole-group paths still apply.

let t: TestApp;
let owner: SignedUpUser;
let siteId: string;
beforeEach(async () => {
  t = await buildTestApp();
  owner = await signUp(t.app);
  const site = await createSite(t.app, owner.bearer, { name: 'Help desk', widget: '{"greeting":"Hello","position":"bottom-right","launcher_text":"Chat"}', branding: 'plain text' });
  siteId = site.id;
});
afterEach(async () => {
  await t.close();
});

function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { authorization: owner.bearer }, ...(payload === undefined ? {} : { payload }) });
}

async function propose(changes: Record<string, unknown>): Promise<ChangeRequestJson> {
  const response = await call('POST', `/api/v1/sites/${siteId}/change-requests`, { title: 'Widget copy', changes });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ change_request: ChangeRequestJson }>().change_request;
}

const apply = (request: { id: string }, body: Record<string, unknown> = {}) => call('POST', `/api/v1/sites/${siteId}/change-requests/${request.id}/apply`, body);

async function widgetNow(): Promise<unknown> {
  return JSON.parse((await call('GET', `/api/v1/sites/${siteId}`)).json<{ site: { widget: string } }>().site.widget);
}

test('two requests changing different settings of one group both land, in either order, each path a setting', async () => {
  const greeting = await propose({ widget: '{"greeting":"Welcome","position":"bottom-right","launcher_text":"Chat"}' });
  const position = await propose({ widget: '{\n  "greeting": "Hello",\n  "position": "bottom-left",\n  "launcher_text": "Chat",\n  "enabled": true\n}' });
  assert.deepEqual(greeting.changes, [{ path: '/widget/greeting', before: 'Hello', after: 'Welcome' }]);
  // A setting added has no `before`.
  assert.deepEqual(position.changes, [
    { path: '/widget/position', before: 'bottom-right', after: 'bottom-left' },
    { path: '/widget/enabled', after: true },
  ]);
  assert.equal((await apply(position)).statusCode, 200);
  const landed = await apply(greeting);
  assert.equal(landed.statusCode, 200, landed.body);
  assert.deepEqual(await widgetNow(), { greeting: 'Welcome', position: 'bottom-left', launcher_text: 'Chat', enabled: true });
  // The history records the same paths.
  const versions = (await call('GET', `/api/v1/sites/${siteId}/versions`)).json<{ versions: Array<{ changes: unknown[] }> }>().versions;
  assert.deepEqual(versions[0]?.changes, [{ path: '/widget/greeting', before: 'Hello', after: 'Welcome' }]);
  assert.deepEqual(versions[1]?.changes, [
    { path: '/widget/position', before: 'bottom-right', after: 'bottom-left' },
    { path: '/widget/enabled', after: true },
  ]);
});

test('one setting changed on both sides is the only conflict: 409 naming it, nothing changes; resolved by its path it applies', async () => {
  const request = await propose({ widget: '{"greeting":"Welcome","position":"bottom-left","launcher_text":"Chat"}', branding: 'proposed text' });
  const moved = await call('PUT', `/api/v1/sites/${siteId}`, { widget: '{"greeting":"Hi there","position":"bottom-right","launcher_text":"Ask us"}' });
  assert.equal(moved.statusCode, 200, moved.body);
  const refused = await apply(request);
  assert.equal(refused.statusCode, 409, refused.body);
  assert.equal(refused.json().code, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT);
  // The position and the branding (a group that is not JSON, one path) changed on one side only.
  assert.deepEqual(refused.json().conflicts, [{ path: '/widget/greeting', base: 'Hello', current: 'Hi there', proposed: 'Welcome' }]);
  assert.deepEqual(await widgetNow(), { greeting: 'Hi there', position: 'bottom-right', launcher_text: 'Ask us' });
  // The whole group is not a path this request changes: a resolution must name the setting.
  assert.equal((await apply(request, { resolve: { '/widget': 'proposed' } })).json().code, HTTP_ERRORS.VALIDATION_FAILED);
  const settled = await apply(request, { resolve: { '/widget/greeting': 'current' } });
  assert.equal(settled.statusCode, 200, settled.body);
  assert.deepEqual(await widgetNow(), { greeting: 'Hi there', position: 'bottom-left', launcher_text: 'Ask us' });
  assert.equal((await call('GET', `/api/v1/sites/${siteId}`)).json().site.branding, 'proposed text');

  const again = await propose({ widget: '{"greeting":"Good day","position":"bottom-left","launcher_text":"Ask us"}' });
  await call('PUT', `/api/v1/sites/${siteId}`, { widget: '{"greeting":"Howdy","position":"bottom-left","launcher_text":"Ask us"}' });
  const kept = await apply(again, { resolve: { '/widget/greeting': 'proposed' } });
  assert.equal(kept.statusCode, 200, kept.body);
  assert.deepEqual(await widgetNow(), { greeting: 'Good day', position: 'bottom-left', launcher_text: 'Ask us' });
});

test('the preview lays a proposed setting into the group as it is now', async () => {
  const request = await propose({ widget: '{"greeting":"Welcome","position":"bottom-right","launcher_text":"Chat"}' });
  await call('PUT', `/api/v1/sites/${siteId}`, { widget: '{"greeting":"Hello","position":"bottom-left","launcher_text":"Chat"}' });
  const key = (await call('GET', `/api/v1/sites/${siteId}`)).json().site.public_key as string;
  const preview = await t.app.inject({ method: 'GET', url: `/public/v1/sites/${key}?preview=${encodeURIComponent(request.preview_token ?? '')}` });
  assert.equal(preview.statusCode, 200, preview.body);
  assert.deepEqual(preview.json().site.widget, { greeting: 'Welcome', position: 'bottom-left', launcher_text: 'Chat' });
});

test('a proposal stored with whole-group paths still applies, and still conflicts as a whole group', async () => {
  const request = await propose({ widget: '{"greeting":"Welcome","position":"bottom-right","launcher_text":"Chat"}' });
  const wholeGroup = [{ path: '/widget', before: '{"greeting":"Hello","position":"bottom-right","launcher_text":"Chat"}', after: '{"greeting":"Welcome"}' }];
  await t.database.db.updateTable('change_requests').set({ changes: JSON.stringify(wholeGroup) }).where('id', '=', request.id).execute();
  const applied = await apply(request);
  assert.equal(applied.statusCode, 200, applied.body);
  assert.deepEqual(await widgetNow(), { greeting: 'Welcome' });

  const stale = await propose({ branding: 'newer text' });
  await t.database.db
    .updateTable('change_requests')
    .set({ changes: JSON.stringify([{ path: '/widget', before: '{"greeting":"Hello"}', after: '{"greeting":"Old"}' }]) })
    .where('id', '=', stale.id)
    .execute();
  const refused = await apply(stale);
  assert.equal(refused.statusCode, 409, refused.body);
  assert.deepEqual(refused.json().conflicts, [{ path: '/widget', base: '{"greeting":"Hello"}', current: '{"greeting":"Welcome"}', proposed: '{"greeting":"Old"}' }]);
  assert.equal((await apply(stale, { resolve: { '/widget': 'proposed' } })).statusCode, 200);
  assert.deepEqual(await widgetNow(), { greeting: 'Old' });
});
