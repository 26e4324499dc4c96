import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ChangeRequestJson } from '../src/change-requests/schema.js';
import type { SiteJson } from '../src/sites/schema.js';
import { addMember, createSite, createWorkspace, type SignedUpUser, signUp } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { type Dashboard, openDashboard } from './harness.js';

// Change requests in a real Chromium against the real app: the review policy set in the workspace's
// settings, an editor proposing from the editor in one browser, an admin reviewing in another (the
// queue, the diff in words, approve, apply), a conflict settled path by path, and the editor's own
// conflict between two tabs. Every outcome is checked through the API as well as on screen.

/** The rules checked: WCAG 2.0 and 2.1 at levels A and AA, and axe's best practices. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

let dashboard: Dashboard;
let owner: SignedUpUser;
let admin: SignedUpUser;
let editor: SignedUpUser;
let workspaceId: string;
/** The editor's own browser (another device); the harness's page is the admin's. */
let editorPage: Page;

before(async () => {
  dashboard = await openDashboard();
  const { t } = dashboard;
  owner = await signUp(t.app);
  admin = await signUp(t.app);
  editor = await signUp(t.app);
  for (const [user, name] of [
    [admin, 'Ada Admin'],
    [editor, 'Eddie Editor'],
  ] as const) {
    const named = await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: { authorization: user.bearer }, payload: { name } });
    assert.equal(named.statusCode, 200, named.body);
  }
  workspaceId = await createWorkspace(t.app, owner, 'Support team');
  await addMember(t, workspaceId, admin, 'admin');
  await addMember(t, workspaceId, editor, 'editor');
  await signInPage(dashboard.page, dashboard.origin, admin.email);
  editorPage = (await dashboard.newDevice()).page;
  await signInPage(editorPage, dashboard.origin, editor.email);
});

after(async () => {
  await dashboard.close();
});

async function api<T>(user: SignedUpUser, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: Record<string, unknown>): Promise<T> {
  const response = await dashboard.t.app.inject({ method, url, headers: { authorization: user.bearer }, ...(payload === undefined ? {} : { payload }) });
  assert.ok(response.statusCode < 300, `${method} ${url} answered ${response.statusCode}: ${response.body}`);
  return response.json<T>();
}

const siteNow = async (id: string, reader: SignedUpUser = owner) => (await api<{ site: SiteJson }>(reader, 'GET', `/api/v1/sites/${id}`)).site;
const requestsOf = async (id: string) => (await api<{ change_requests: ChangeRequestJson[] }>(owner, 'GET', `/api/v1/sites/${id}/change-requests`)).change_requests;

/** A section of the editor, opened from its own navigation (the draft stays, as it would not over a page load). */
function sectionLink(page: Page, title: string) {
  return page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: new RegExp(`^${title}`) });
}

async function screenshot(name: string, page: Page): Promise<void> {
  await dashboard.screenshot(`change-requests-${name}`, page);
}

/** axe on the page as it is, light and dark, at 1280 and 390 px; back to light at 1280 afterwards. */
async function axeEverywhere(page: Page, name: string, found: string[]): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const problem of await seriousAccessibilityProblems(page, { tags: WCAG_AA })) found.push(`${name} (${colorScheme}, ${width} px): ${problem}`);
    }
    await screenshot(`${name}-${colorScheme}`, page);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

test('review is required in the workspace settings; an editor proposes, an admin reviews, approves and applies; a conflict is settled path by path', { timeout: 300_000 }, async () => {
  const { origin, page } = dashboard;
  const site = await createSite(dashboard.t.app, owner.bearer, {
    name: 'Help centre',
    color: '#0f766e',
    workspace_id: workspaceId,
    widget: '{"greeting":"Hello"}',
    ai_settings: '{"tone":"friendly"}',
  });
  // Dark brand colours: the widget preview draws the site's own colours, white text on them.
  const accessibility: string[] = [];

  // The admin requires review, one approval, in the workspace's settings.
  await page.goto(`${origin}/settings/workspaces/${workspaceId}`);
  const policy = page.getByRole('region', { name: 'Review of changes' });
  await policy.getByLabel('Require review of changes to sites').check();
  await policy.getByLabel('Approvals needed').selectOption('2');
  await policy.getByLabel('Approvals needed').selectOption('1');
  await policy.getByRole('button', { name: 'Save review policy' }).click();
  await policy.getByRole('status').filter({ hasText: 'Changes are reviewed: 1 approval' }).waitFor();
  const workspaces = await api<{ workspaces: Array<{ id: string; review: unknown }> }>(owner, 'GET', '/api/v1/workspaces');
  assert.deepEqual(workspaces.workspaces.find((each) => each.id === workspaceId)?.review, { required: true, approvals: 1 });
  await axeEverywhere(page, 'review-policy', accessibility);

  // The editor reads the policy, and cannot change it.
  await editorPage.goto(`${origin}/settings/workspaces/${workspaceId}`);
  const editorPolicy = editorPage.getByRole('region', { name: 'Review of changes' });
  await editorPolicy.getByText('Changes are reviewed: 1 approval from an admin or owner').waitFor();
  assert.equal(await editorPolicy.getByRole('checkbox').count(), 0, 'the editor sees the policy read-only');

  // In the editor, Save has become "Propose change…". A proposal the server refuses names the field in the form's words.
  await editorPage.goto(`${origin}/sites/${site.id}/integration`);
  await editorPage.getByLabel('Base URL').fill('not an address');
  assert.equal(await editorPage.getByRole('button', { name: 'Save', exact: true }).count(), 0);
  await editorPage.getByRole('button', { name: 'Propose change…' }).click();
  const dialog = editorPage.getByRole('dialog', { name: 'Propose this change' });
  await dialog.getByRole('button', { name: 'Propose change' }).click();
  await dialog.getByText('Enter a title.').waitFor();
  await dialog.getByLabel('Title').fill('Partner address');
  await dialog.getByRole('button', { name: 'Propose change' }).click();
  await dialog.getByRole('alert').filter({ hasText: 'The change was not proposed' }).getByText('Base URL').waitFor();
  await screenshot('propose-refused', editorPage);
  assert.equal((await requestsOf(site.id)).length, 0, 'nothing was proposed');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await editorPage.getByLabel('Base URL').fill('');

  await editorPage.goto(`${origin}/sites/${site.id}/widget`);
  await editorPage.getByLabel('Greeting').fill('Welcome aboard');
  // Meanwhile the owner changes the greeting directly: the proposal, made on the older version, is not sent.
  await api(owner, 'PUT', `/api/v1/sites/${site.id}`, { widget: '{"greeting":"Hi there"}' });
  await editorPage.getByRole('button', { name: 'Propose change…' }).click();
  await dialog.getByLabel('Title').fill('Warmer greeting');
  await dialog.getByLabel('Description (optional)').fill('Visitors found "Hello" curt.');
  await dialog.getByRole('button', { name: 'Propose change' }).click();
  const newer = editorPage.getByRole('region', { name: 'Choose what to keep' });
  const greeting = newer.getByRole('group', { name: 'Chat widget' });
  // The server's 412 comes back after the click: wait for the question before reading it.
  await greeting.getByRole('row').nth(1).waitFor();
  assert.deepEqual(await greeting.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['Hello', 'Hi there', 'Welcome aboard']);
  assert.equal((await requestsOf(site.id)).length, 0, 'nothing was proposed over the newer version');
  await greeting.getByLabel('Keep mine').check();
  await newer.getByRole('button', { name: 'Propose on top of their version…' }).click();
  assert.equal(await dialog.getByLabel('Title').inputValue(), 'Warmer greeting', 'what was typed in the dialog stays');
  await dialog.getByRole('button', { name: 'Propose change' }).click();
  const proposedNotice = editorPage.getByRole('status').filter({ hasText: 'Your change was proposed' });
  await proposedNotice.waitFor();
  const [first] = await requestsOf(site.id);
  assert.ok(first !== undefined);
  assert.equal(first.title, 'Warmer greeting');
  assert.equal(first.description, 'Visitors found "Hello" curt.');
  assert.deepEqual(first.changes, [{ path: '/widget/greeting', before: 'Hi there', after: 'Welcome aboard' }]);
  assert.equal((await siteNow(site.id)).widget, '{"greeting":"Hi there"}', 'the site is unchanged until the change is applied');
  assert.equal(await editorPage.getByLabel('Greeting').inputValue(), 'Hi there', 'the editor shows the live site again');

  // The author's own page: no approving one's own change, and nothing to apply before the approval.
  await proposedNotice.getByRole('link', { name: 'Open “Warmer greeting”' }).click();
  await editorPage.getByRole('heading', { name: 'Warmer greeting', level: 1 }).waitFor();
  await editorPage.getByText('Needs 1 more approval from an admin or owner other than you before it can be applied.').waitFor();
  assert.equal(await editorPage.getByRole('button', { name: 'Approve' }).count(), 0);
  assert.equal(await editorPage.getByRole('button', { name: 'Apply now' }).isDisabled(), true);

  // The admin finds it waiting for review on the Sites screen and in the site's own list.
  await page.goto(`${origin}/`);
  const queue = page.getByRole('list', { name: 'Waiting for review in Support team' });
  const row = queue.getByRole('listitem').filter({ hasText: 'Warmer greeting' });
  await row.waitFor();
  for (const text of ['by Eddie Editor', 'on Help centre', 'Waiting for review', '0 of 1 approval']) await row.getByText(text, { exact: true }).waitFor();
  await axeEverywhere(page, 'review-queue', accessibility);
  await page.goto(`${origin}/sites/${site.id}/change-requests`);
  await page.getByRole('list', { name: 'Waiting for review' }).getByRole('link', { name: 'Warmer greeting' }).click();

  // The diff in the form's words, the preview of the proposal; approve, then apply.
  await page.getByRole('heading', { name: 'Warmer greeting', level: 1 }).waitFor();
  const changes = page.getByRole('list', { name: 'Proposed changes' });
  assert.deepEqual((await changes.getByRole('listitem').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim()), ['Chat widget › Greeting Hi there → became Welcome aboard']);
  await page.getByTestId('widget-preview').getByText('Welcome aboard').waitFor();
  await page.getByText('Visitors found "Hello" curt.').waitFor();
  await axeEverywhere(page, 'request', accessibility);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('1 of 1 approval: Ada Admin').waitFor();
  await page.getByRole('button', { name: 'Apply now' }).click();
  await page.getByRole('status').filter({ hasText: 'It is live as version' }).waitFor();
  const applied = await siteNow(site.id);
  assert.equal(JSON.parse(applied.widget).greeting, 'Welcome aboard');
  const versions = await api<{ versions: Array<{ via: { change_request?: { id: string } } }> }>(owner, 'GET', `/api/v1/sites/${site.id}/versions`);
  assert.equal(versions.versions[0]?.via.change_request?.id, first.id, 'the version names the request');

  // A second proposal changes the tone, the colour and the name; meanwhile the owner changes the tone and the colour.
  const second = (
    await api<{ change_request: ChangeRequestJson }>(editor, 'POST', `/api/v1/sites/${site.id}/change-requests`, {
      title: 'Concise and green',
      changes: { ai_settings: '{"tone":"concise"}', color: '#166534', name: 'Help centre EU' },
    })
  ).change_request;
  await api(owner, 'PUT', `/api/v1/sites/${site.id}`, { ai_settings: '{"tone":"professional"}', color: '#991b1b' });
  await page.goto(`${origin}/sites/${site.id}/change-requests/${second.id}`);
  await page.getByRole('heading', { name: 'Concise and green', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('1 of 1 approval: Ada Admin').waitFor();
  await page.getByRole('button', { name: 'Apply now' }).click();
  const conflicts = page.getByRole('region', { name: 'The site changed since this was proposed' });
  await conflicts.waitFor();
  const tone = conflicts.getByRole('group', { name: 'AI assistant › Tone' });
  assert.deepEqual(await tone.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['Friendly', 'Professional', 'Concise']);
  const colour = conflicts.getByRole('group', { name: 'Colour' });
  assert.deepEqual(await colour.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['#0f766e', '#991b1b', '#166534']);
  assert.equal(await conflicts.getByRole('group', { name: 'Name' }).count(), 0, 'the name changed only in the proposal: no conflict');
  assert.equal(await conflicts.getByRole('button', { name: 'Apply with these choices' }).isDisabled(), true, 'every path needs its choice');
  assert.equal(JSON.parse((await siteNow(site.id)).ai_settings).tone, 'professional', 'nothing was applied');
  await axeEverywhere(page, 'conflict', accessibility);
  await tone.getByLabel('Keep the proposal').check();
  await colour.getByLabel('Take the current value').check();
  await conflicts.getByRole('button', { name: 'Apply with these choices' }).click();
  await page.getByRole('status').filter({ hasText: 'It is live as version' }).waitFor();
  const merged = await siteNow(site.id);
  assert.equal(JSON.parse(merged.ai_settings).tone, 'concise', 'the proposal kept for the tone');
  assert.equal(merged.color, '#991b1b', 'the current value taken for the colour');
  assert.equal(merged.name, 'Help centre EU', 'the path without a conflict merged');

  // A third, approved, is scheduled for tomorrow at 10:30 in the person's time zone, then withdrawn.
  const third = (await api<{ change_request: ChangeRequestJson }>(editor, 'POST', `/api/v1/sites/${site.id}/change-requests`, { title: 'Holiday greeting', changes: { widget: '{"greeting":"Happy holidays"}' } })).change_request;
  await api(admin, 'POST', `/api/v1/sites/${site.id}/change-requests/${third.id}/approve`);
  const tomorrow = new Date(Date.now() + 86_400_000);
  const pad = (value: number) => String(value).padStart(2, '0');
  const localTime = `${tomorrow.getFullYear()}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T10:30`;
  await page.goto(`${origin}/sites/${site.id}/change-requests/${third.id}`);
  await page.getByLabel('Or apply at a time').fill(localTime);
  await page.getByRole('button', { name: 'Schedule' }).click();
  await page.getByRole('status').filter({ hasText: 'It goes live on' }).waitFor();
  const scheduled = (await requestsOf(site.id)).find((each) => each.id === third.id);
  assert.equal(scheduled?.status, 'scheduled');
  // The browser and this process share the machine's time zone: the same local time is the same instant.
  assert.equal(scheduled.scheduled_at, new Date(localTime).toISOString());
  await page.getByRole('button', { name: 'Withdraw…' }).click();
  await page.getByRole('dialog', { name: 'Withdraw “Holiday greeting”?' }).getByRole('button', { name: 'Withdraw' }).click();
  await page.getByRole('status').filter({ hasText: 'Withdrawn: it will not go live.' }).waitFor();
  assert.equal((await requestsOf(site.id)).find((each) => each.id === third.id)?.status, 'closed');
  assert.equal(JSON.parse((await siteNow(site.id)).widget).greeting, 'Welcome aboard', 'nothing of it was applied');

  assert.deepEqual(accessibility, [], `axe found:\n${accessibility.join('\n')}`);
});

test("the editor's own conflict: two tabs save the same site, and the second chooses path by path what to keep", { timeout: 180_000 }, async () => {
  const { origin, context } = dashboard;
  // The admin's own site (their personal workspace, without review): saves go live directly.
  const site = await createSite(dashboard.t.app, admin.bearer, { name: 'Shared', color: '#0f766e', widget: '{"greeting":"Hello"}', ai_settings: '{"tone":"friendly"}' });
  const first = dashboard.page;
  const second = await context.newPage();
  try {
    for (const tab of [first, second]) {
      await tab.goto(`${origin}/sites/${site.id}/widget`);
      await tab.getByRole('heading', { name: 'Shared', level: 1 }).waitFor();
    }
    // The second tab saves first: the greeting, the tone and the name.
    await second.getByLabel('Greeting').fill('From the second tab');
    await sectionLink(second, 'AI').click();
    await second.getByLabel('Tone').selectOption('professional');
    await sectionLink(second, 'General').click();
    await second.getByRole('textbox', { name: 'Name' }).fill('Shared by two');
    await second.getByRole('button', { name: 'Save', exact: true }).click();
    await second.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: /^Saved$/ }).waitFor();
  } catch (error) {
    await second.close();
    throw error;
  }
  await second.close();

  // The first tab changed the greeting and the tone too, and the colour, which the second left alone.
  await first.getByLabel('Greeting').fill('From the first tab');
  await sectionLink(first, 'AI').click();
  await first.getByLabel('Tone').selectOption('concise');
  await first.getByRole('button', { name: 'Save', exact: true }).click();
  await first.getByText('Someone else saved this site since you opened it').waitFor();
  const panel = first.getByRole('region', { name: 'Choose what to keep' });
  await panel.getByText('You both changed 2 settings').waitFor();
  const widget = panel.getByRole('group', { name: 'Chat widget › Greeting' });
  const tone = panel.getByRole('group', { name: 'AI assistant › Tone' });
  assert.deepEqual(await widget.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['Hello', 'From the second tab', 'From the first tab']);
  assert.deepEqual(await tone.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['Friendly', 'Professional', 'Concise']);
  assert.equal(await panel.getByRole('group', { name: 'Name' }).count(), 0, 'only the second tab changed the name: no conflict');
  assert.equal(await panel.getByRole('button', { name: 'Save on top of their version' }).isDisabled(), true);
  const accessibility: string[] = [];
  await axeEverywhere(first, 'editor-conflict', accessibility);
  assert.deepEqual(accessibility, [], `axe found:\n${accessibility.join('\n')}`);

  await widget.getByLabel('Keep mine').check();
  await tone.getByLabel('Take theirs').check();
  await panel.getByRole('button', { name: 'Save on top of their version' }).click();
  await first.getByRole('region', { name: 'Save changes' }).getByRole('status').filter({ hasText: /^Saved$/ }).waitFor();
  const stored = await siteNow(site.id, admin);
  assert.equal(JSON.parse(stored.widget).greeting, 'From the first tab', 'mine kept for the greeting');
  assert.equal(JSON.parse(stored.ai_settings).tone, 'professional', 'theirs taken for the tone');
  assert.equal(stored.name, 'Shared by two', 'their change elsewhere kept');
  await first.getByRole('heading', { name: 'Shared by two', level: 1 }).waitFor();
  assert.equal(await first.getByLabel('Tone').inputValue(), 'professional', 'the form shows what was saved');
});

test('a fully approved request reads "Approved — ready to apply" in the queue, the site’s list and its page; the audit log tells each step in words', { timeout: 180_000 }, async () => {
  const { page, origin, t } = dashboard;
  const policy = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${workspaceId}`, headers: { authorization: owner.bearer }, payload: { review: { required: true, approvals: 1 } } });
  assert.equal(policy.statusCode, 200, policy.body);
  const site = await createSite(t.app, owner.bearer, { name: 'Approvals site', workspace_id: workspaceId });
  const base = `/api/v1/sites/${site.id}/change-requests`;
  const approved = (await api<{ change_request: ChangeRequestJson }>(editor, 'POST', base, { title: 'Friendlier tone', changes: { ai_settings: '{"tone":"friendly"}' } })).change_request;
  const waiting = (await api<{ change_request: ChangeRequestJson }>(editor, 'POST', base, { title: 'Still waiting', changes: { color: '#123456' } })).change_request;
  await api(admin, 'POST', `${base}/${approved.id}/approve`);

  // The queue on the Sites screen.
  await page.goto(`${origin}/`);
  const queue = page.getByRole('list', { name: 'Waiting for review in Support team' });
  await queue.getByRole('listitem').filter({ hasText: 'Friendlier tone' }).getByText('Approved — ready to apply', { exact: true }).waitFor();
  await queue.getByRole('listitem').filter({ hasText: 'Still waiting' }).getByText('Waiting for review', { exact: true }).waitFor();
  // The site's own list.
  await page.goto(`${origin}/sites/${site.id}/change-requests`);
  const list = page.getByRole('list', { name: 'Waiting for review' });
  await list.getByRole('listitem').filter({ hasText: 'Friendlier tone' }).getByText('Approved — ready to apply', { exact: true }).waitFor();
  assert.equal(await list.getByRole('listitem').filter({ hasText: 'Still waiting' }).getByText('Approved — ready to apply').count(), 0);
  // The request's page.
  await page.goto(`${origin}/sites/${site.id}/change-requests/${approved.id}`);
  await page.getByRole('heading', { name: 'Friendlier tone', level: 1 }).waitFor();
  await page.locator('.change-request-meta .badge').filter({ hasText: 'Approved — ready to apply' }).waitFor();

  // Declined and applied, then the audit log in words.
  await api(admin, 'POST', `${base}/${waiting.id}/decline`, {});
  const live = await api<{ change_request: ChangeRequestJson }>(admin, 'POST', `${base}/${approved.id}/apply`, {});
  await page.goto(`${origin}/settings/workspaces/${workspaceId}/audit-log`);
  const rows = page.locator('.audit-list > li');
  for (const sentence of [
    'Eddie Editor proposed the change “Friendlier tone”',
    'Eddie Editor proposed the change “Still waiting”',
    'Ada Admin approved the change “Friendlier tone”',
    'Ada Admin declined the change “Still waiting”',
    `Ada Admin applied the change “Friendlier tone”, making version ${String(live.change_request.applied_version)}`,
  ]) {
    await rows.filter({ hasText: sentence }).first().waitFor();
  }
  assert.equal(await rows.filter({ hasText: /change_request\./ }).count(), 0, 'no raw codes');
});
