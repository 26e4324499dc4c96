import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SiteJson } from '../src/sites/schema.js';
import { addMember, createSite, createWorkspace, type SignedUpUser, signUp, signUpConfirmed, STRONG_PASSWORD, type TestApp } from '../test/helpers.js';
import { linkIn, type TestSmtpServer } from '../test/smtp.js';
import { seriousAccessibilityProblems } from './axe.js';
import { scrollsSideways, signInPage } from './dashboard-session.js';
import { type Dashboard, openDashboard } from './harness.js';

// Workspaces in the dashboard, in a real Chromium against the real app: the sites list's switcher,
// the read-only editor of a viewer, an editor's save, Settings > Workspaces, and invitations from
// the admin's form through the mail to the invited person's own browser. Where an invitation is not
// the subject, members are added as the CLI's workspaces:add-member does, through the service on
// the app's own database and cache. Every change is checked through the API too.

// The one browser global a page-side callback touches (the project compiles without the DOM library).
declare const document: { querySelectorAll(selector: string): { length: number } };

/** The rules checked: WCAG 2.0 and 2.1 at levels A and AA, and axe's best practices. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

async function readSite(t: TestApp, user: SignedUpUser, id: string): Promise<SiteJson> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${id}`, headers: { authorization: user.bearer } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ site: SiteJson }>().site;
}

async function membersOf(t: TestApp, owner: SignedUpUser, workspaceId: string): Promise<Record<string, string>> {
  const response = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspaceId}/members`, headers: { authorization: owner.bearer } });
  assert.equal(response.statusCode, 200, response.body);
  return Object.fromEntries(response.json<{ members: Array<{ user: { email: string }; role: string }> }>().members.map((member) => [member.user.email, member.role]));
}

async function rowNames(page: Page): Promise<string[]> {
  return page.getByRole('region', { name: 'Your sites' }).locator('.site-row .site-name').allTextContents();
}

/** axe in light and dark, with a screenshot of each; returns what it found, one line each. */
async function checkBothThemes(dashboard: Dashboard, page: Page, name: string, reopen: () => Promise<void>): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await reopen();
    for (const problem of await seriousAccessibilityProblems(page, { tags: WCAG_AA })) found.push(`${name} (${colorScheme}): ${problem}`);
    await dashboard.screenshot(`${name}-${colorScheme}`, page);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test('a viewer sees a team site read-only and why; an editor saves; a role lowered mid-edit keeps the draft; the switcher filters the list', { timeout: 300_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const owner = await signUp(t.app);
    const viewer = await signUp(t.app);
    const editor = await signUp(t.app);
    const team = await createWorkspace(t.app, owner, 'Support team');
    const teamSite = await createSite(t.app, owner.bearer, { name: 'Team help desk', workspace_id: team, ai_settings: '{"model":"small"}', partner_settings: { enabled: true } });
    await createSite(t.app, viewer.bearer, { name: 'My own notes' });
    assert.equal(await addMember(t, team, viewer, 'viewer'), true);
    assert.equal(await addMember(t, team, editor, 'editor'), true);

    // All workspaces: each row names its workspace, and the team site says the viewer's role.
    await signInPage(page, origin, viewer.email);
    await page.goto(`${origin}/`);
    await page.getByRole('region', { name: 'Your sites' }).getByText('Team help desk').waitFor();
    assert.deepEqual((await rowNames(page)).sort(), ['My own notes', 'Team help desk']);
    const teamRow = page.locator('.site-row', { hasText: 'Team help desk' });
    await teamRow.getByText('Support team').waitFor();
    // Seen as "Viewer"; read out as "Your role: Viewer".
    assert.equal(await teamRow.locator('.role-badge').textContent(), 'Your role: Viewer');
    assert.equal(await page.locator('.site-row', { hasText: 'My own notes' }).locator('.role-badge').count(), 0, 'no badge where the person owns the workspace');

    // One workspace: the address says which, a reload keeps it, and New site gives way to the reason.
    await page.getByLabel('Workspace', { exact: true }).selectOption({ label: 'Support team' });
    await page.waitForURL((url) => url.searchParams.get('workspace') === team);
    await page.waitForFunction(() => document.querySelectorAll('.site-row').length === 1);
    assert.deepEqual(await rowNames(page), ['Team help desk']);
    await page.getByText('You are a viewer in Support team: you can open its sites but not create them.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'New site' }).count(), 0);
    await page.reload();
    await page.getByRole('region', { name: 'Your sites' }).getByText('Team help desk').waitFor();
    assert.equal(await page.getByLabel('Workspace', { exact: true }).inputValue(), team);
    await page.setViewportSize({ width: 320, height: 800 });
    assert.equal(await scrollsSideways(page), false, 'the list with its switcher fits 320 px');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByLabel('Workspace', { exact: true }).selectOption({ label: 'All workspaces' });
    await page.waitForURL((url) => !url.searchParams.has('workspace'));
    await page.getByRole('button', { name: 'New site' }).waitFor();

    // The viewer's editor: every field shown, none editable, nothing to save, delete or check.
    await page.goto(`${origin}/sites/${teamSite.id}`);
    await page.getByRole('heading', { name: 'Team help desk', level: 1 }).waitFor();
    await page.getByText('You are a viewer in Support team: ask an admin for editor access.').waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).isDisabled(), true);
    assert.equal(await page.getByRole('region', { name: 'Save changes' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete this site…' }).count(), 0);
    await page.keyboard.press('Control+s');
    await page.goto(`${origin}/sites/${teamSite.id}/ai`);
    await page.getByRole('heading', { name: 'AI', level: 2, exact: true }).waitFor();
    const aiFields = page.locator('.group-form').locator('input, select, textarea');
    assert.ok((await aiFields.count()) > 0);
    for (const field of await aiFields.all()) assert.equal(await field.isDisabled(), true);
    const readOnlyEditor = `${origin}/sites/${teamSite.id}/integration`;
    await page.goto(readOnlyEditor);
    await page.getByRole('heading', { name: 'Partner integration' }).waitFor();
    assert.equal(await page.getByLabel('Base URL').isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Check now' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Test these settings' }).count(), 0);
    const found = await checkBothThemes(dashboard, page, 'site-editor-read-only', async () => {
      await page.goto(`${origin}/sites/${teamSite.id}`);
      await page.getByText('You are a viewer in Support team: ask an admin for editor access.').waitFor();
    });
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    assert.equal((await readSite(t, owner, teamSite.id)).updated_at, teamSite.updated_at, 'nothing was saved');

    // The viewer reads the history, and has nothing to restore.
    const changed = await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${teamSite.id}`, headers: { authorization: owner.bearer }, payload: { widget: '{"position":"left"}' } });
    assert.equal(changed.statusCode, 200, changed.body);
    await page.goto(`${origin}/sites/${teamSite.id}/history`);
    await page.getByText('Version 2').waitFor();
    await page.getByText('Chat widget › Position').waitFor();
    assert.equal(await page.getByRole('button', { name: /Restore/ }).count(), 0);

    // An editor edits and saves; they may not delete the site.
    const second = await dashboard.newDevice();
    const editorPage = second.page;
    await signInPage(editorPage, origin, editor.email);
    await editorPage.goto(`${origin}/sites/${teamSite.id}`);
    await editorPage.getByRole('heading', { name: 'Team help desk', level: 1 }).waitFor();
    assert.equal(await editorPage.getByText('ask an admin for editor access').count(), 0);
    assert.equal(await editorPage.getByRole('button', { name: 'Delete this site…' }).count(), 0);
    await editorPage.getByLabel('Name', { exact: true }).fill('Team help desk 2');
    await editorPage.getByRole('button', { name: 'Save', exact: true }).click();
    await editorPage.getByRole('region', { name: 'Save changes' }).getByText('Saved', { exact: true }).waitFor();
    assert.equal((await readSite(t, owner, teamSite.id)).name, 'Team help desk 2');

    // The editor is made a viewer while editing: the save is refused, the draft stays on screen.
    await editorPage.getByLabel('Name', { exact: true }).fill('Draft kept on screen');
    const lowered = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${team}/members/${editor.id}`, headers: { authorization: owner.bearer }, payload: { role: 'viewer' } });
    assert.equal(lowered.statusCode, 200, lowered.body);
    await editorPage.getByRole('button', { name: 'Save', exact: true }).click();
    await editorPage.getByRole('alert').filter({ hasText: 'Your role in this workspace does not allow this' }).waitFor();
    await editorPage.getByText('Your changes are still on screen').waitFor();
    assert.equal(await editorPage.getByLabel('Name', { exact: true }).inputValue(), 'Draft kept on screen');
    await dashboard.screenshot('site-editor-role-lowered', editorPage);
    assert.equal((await readSite(t, owner, teamSite.id)).name, 'Team help desk 2');
  } finally {
    await dashboard.close();
  }
});

test('Settings > Workspaces: create, rename, change a role, refuse the last owner leaving, remove a member, delete; light and dark', { timeout: 300_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    await signInPage(page, origin, owner.email);

    // The list, from the settings navigation; the personal workspace is there with its role.
    await page.goto(`${origin}/settings/profile`);
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Workspaces' }).click();
    await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
    await page.getByText('Your personal workspace').waitFor();

    await page.getByLabel('Workspace name').fill('Design team');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('region', { name: 'Your workspaces' }).getByRole('link', { name: 'Design team' }).waitFor();
    const listed = (await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: { authorization: owner.bearer } })).json<{ workspaces: Array<{ id: string; name: string; role: string }> }>().workspaces;
    const design = listed.find((workspace) => workspace.name === 'Design team');
    assert.ok(design !== undefined);
    assert.equal(design.role, 'owner');
    const designId = design.id;
    assert.equal(await addMember(t, designId, member, 'viewer'), true);

    const found = await checkBothThemes(dashboard, page, 'settings-workspaces', async () => {
      await page.goto(`${origin}/settings/workspaces`);
      await page.getByRole('region', { name: 'Your workspaces' }).getByRole('link', { name: 'Design team' }).waitFor();
    });

    // One workspace: rename it, and make the viewer an editor.
    await page.getByRole('link', { name: 'Design team' }).click();
    await page.getByRole('heading', { name: 'Design team', level: 1 }).waitFor();
    await page.getByLabel('Workspace name').fill('Design studio');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'Design studio', level: 1 }).waitFor();
    const roleSelect = page.getByLabel(`Role of ${member.email}`);
    assert.equal(await roleSelect.inputValue(), 'viewer');
    await roleSelect.selectOption({ label: 'Editor' });
    // Choosing is not applying: arrowing through the list must not send each role on the way.
    assert.equal((await membersOf(t, owner, designId))[member.email], 'viewer');
    await page.getByRole('button', { name: `Make ${member.email} editor` }).click();
    await page.getByText(`${member.email} is now editor.`).waitFor();
    assert.equal((await membersOf(t, owner, designId))[member.email], 'editor');
    assert.equal(await page.getByLabel(`Role of ${owner.email}`).count(), 0, 'one’s own role is not changed from the list');

    found.push(
      ...(await checkBothThemes(dashboard, page, 'settings-workspace', async () => {
        await page.goto(`${origin}/settings/workspaces/${designId}`);
        await page.getByLabel(`Role of ${member.email}`).waitFor();
      })),
    );
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    await page.setViewportSize({ width: 320, height: 800 });
    assert.equal(await scrollsSideways(page), false, 'the workspace screen fits 320 px');
    await page.setViewportSize({ width: 1440, height: 900 });

    // The last owner cannot leave: said at once, with no confirmation to go through first.
    await page.getByText('You are its only owner: make another member an owner first, or delete the workspace.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Leave workspace…' }).count(), 0);

    await page.getByRole('button', { name: `Remove ${member.email}` }).click();
    await page.getByRole('dialog', { name: `Remove ${member.email}?` }).getByRole('button', { name: 'Remove member' }).click();
    // Sent when its notice closes (Undo until then); dismissing closes it now.
    await page.getByRole('region', { name: 'Notifications' }).getByRole('button', { name: 'Dismiss' }).click();
    await page.getByText(`${member.email} was removed from Design studio.`).waitFor();
    assert.equal((await membersOf(t, owner, designId))[member.email], undefined);

    // The personal workspace can be neither left nor deleted.
    await page.goto(`${origin}/settings/workspaces`);
    await page.locator('.workspace-list li', { hasText: 'Your personal workspace' }).getByRole('link').click();
    await page.getByText('Your personal workspace stays yours: it cannot be left or deleted.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Leave workspace…' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete workspace…' }).count(), 0);

    await page.goto(`${origin}/settings/workspaces/${designId}`);
    await page.getByRole('button', { name: 'Delete workspace…' }).click();
    await page.getByRole('dialog', { name: 'Delete Design studio?' }).getByRole('button', { name: 'Delete workspace and its sites' }).click();
    await page.getByText('Design studio and its sites were deleted.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/settings/workspaces');
    const gone = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${designId}`, headers: { authorization: owner.bearer } });
    assert.equal(gone.statusCode, 404);

    // A reload of a workspace's address is answered by the dashboard, which says it is gone.
    await page.goto(`${origin}/settings/workspaces/${designId}`);
    await page.getByRole('heading', { name: 'Workspace not found', level: 1 }).waitFor();
  } finally {
    await dashboard.close();
  }
});

const INVITATION_LINK = /https?:\/\/\S+\/invitations\/accept\?token=[A-Za-z0-9_-]+/;

/** The invitation link in the newest mail to `email` after the first `from` messages, as its holder reads it. */
async function invitationLink(smtp: TestSmtpServer, email: string, from: number): Promise<string> {
  const mail = await smtp.waitForMessage(from, (each) => each.to.includes(email) && INVITATION_LINK.test(each.text));
  return INVITATION_LINK.exec(mail.text)?.[0] ?? '';
}

test('an admin invites from Settings; the mailed link brings a new colleague through sign-up to edit and an existing one through a sign-in link to read only; a withdrawn link stops working', { timeout: 300_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, smtp, page, origin } = dashboard;
  try {
    // Inviting mails people in the inviter's name: the owner has confirmed their address.
    const owner = await signUpConfirmed(t.app, smtp);
    const viewer = await signUpConfirmed(t.app, smtp, 'stakeholder@example.com');
    const team = await createWorkspace(t.app, owner, 'Support team');
    const teamSite = await createSite(t.app, owner.bearer, { name: 'Team help desk', workspace_id: team });

    await signInPage(page, origin, owner.email);
    await page.goto(`${origin}/settings/workspaces/${team}`);
    const invitations = page.getByRole('region', { name: 'Invitations' });
    await invitations.getByText('No invitation is waiting for an answer.').waitFor();

    // A malformed address is refused on the form, before anything is sent.
    await invitations.getByLabel('E-mail address').fill('not an address');
    await invitations.getByRole('button', { name: 'Send invitation' }).click();
    await invitations.getByText('Enter the address to invite, like name@example.com.').waitFor();

    let sent = smtp.messages.length;
    await invitations.getByLabel('E-mail address').fill('New.Colleague@example.com');
    await invitations.getByLabel('Role', { exact: true }).selectOption('editor');
    await invitations.getByRole('button', { name: 'Send invitation' }).click();
    await invitations.getByText('Invitation sent to new.colleague@example.com.', { exact: false }).waitFor();
    const editorLink = await invitationLink(smtp, 'new.colleague@example.com', sent);

    sent = smtp.messages.length;
    await invitations.getByLabel('E-mail address').fill(viewer.email);
    await invitations.getByLabel('Role', { exact: true }).selectOption('viewer');
    await invitations.getByRole('button', { name: 'Send invitation' }).click();
    await invitations.getByText(`Invitation sent to ${viewer.email}.`, { exact: false }).waitFor();
    const viewerLink = await invitationLink(smtp, viewer.email, sent);

    sent = smtp.messages.length;
    await invitations.getByLabel('E-mail address').fill('changed.mind@example.com');
    await invitations.getByRole('button', { name: 'Send invitation' }).click();
    const pending = invitations.getByRole('list', { name: 'Pending invitations' });
    await pending.getByText('changed.mind@example.com').waitFor();
    const withdrawnLink = await invitationLink(smtp, 'changed.mind@example.com', sent);
    assert.deepEqual(await pending.locator('strong').allTextContents(), ['changed.mind@example.com', viewer.email, 'new.colleague@example.com'], 'newest first');
    await pending.locator('li', { hasText: viewer.email }).getByText('Invited as a viewer').waitFor();
    const found = await checkBothThemes(dashboard, page, 'workspace-invitations', async () => {
      await page.reload();
      await page.getByRole('list', { name: 'Pending invitations' }).getByText('changed.mind@example.com').waitFor();
    });
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    await page.getByRole('button', { name: 'Withdraw the invitation to changed.mind@example.com' }).click();
    await invitations.getByText('The invitation to changed.mind@example.com was withdrawn', { exact: false }).waitFor();
    assert.equal(await pending.getByText('changed.mind@example.com').count(), 0);

    // The new colleague: the link's page (opening it joins no one), sign-up, back to the page, Join.
    const colleague = await dashboard.newDevice();
    await colleague.page.goto(editorLink);
    await colleague.page.getByRole('heading', { name: 'Join a workspace' }).waitFor();
    await colleague.page.getByText('You are invited to join Support team as editor.').waitFor();
    assert.equal(Object.keys(await membersOf(t, owner, team)).length, 1, 'opening the link joined no one');
    await colleague.page.getByRole('link', { name: 'Create an account with new.colleague@example.com' }).click();
    // The form starts with the invited address.
    await colleague.page.getByRole('heading', { name: 'Create your account' }).waitFor();
    assert.equal(await colleague.page.getByLabel('E-mail').inputValue(), 'new.colleague@example.com');
    await colleague.page.getByLabel('Password').fill(STRONG_PASSWORD);
    await colleague.page.getByRole('button', { name: 'Create account' }).click();
    await colleague.page.getByRole('heading', { name: 'Join a workspace' }).waitFor();
    await colleague.page.getByRole('button', { name: 'Join' }).click();
    await colleague.page.getByText('You joined Support team as editor.').waitFor();
    await colleague.page.getByRole('link', { name: 'Open the sites of Support team' }).click();
    await colleague.page.getByRole('region', { name: 'Your sites' }).getByText('Team help desk').waitFor();
    assert.equal(await colleague.page.getByRole('combobox', { name: 'Workspace', exact: true }).inputValue(), team);
    await colleague.page.getByRole('link', { name: 'Team help desk' }).click();
    await colleague.page.getByRole('heading', { name: 'Team help desk', level: 1 }).waitFor();
    await colleague.page.getByLabel('Name', { exact: true }).fill('Team help desk, by the new editor');
    await colleague.page.getByRole('button', { name: 'Save', exact: true }).click();
    await colleague.page.getByRole('region', { name: 'Save changes' }).getByText('Saved', { exact: true }).waitFor();
    assert.equal((await readSite(t, owner, teamSite.id)).name, 'Team help desk, by the new editor');

    // The stakeholder has an account and signs in from the link's page with a sign-in link: once
    // redeemed, it leads back to the invitation. Join, and the site is read-only.
    const stakeholder = await dashboard.newDevice();
    await stakeholder.page.goto(viewerLink);
    await stakeholder.page.getByRole('link', { name: 'Sign in' }).click();
    await stakeholder.page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    sent = smtp.messages.length;
    await stakeholder.page.getByLabel('E-mail').fill(viewer.email);
    await stakeholder.page.getByRole('button', { name: 'E-mail me a link' }).click();
    await stakeholder.page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await stakeholder.page.goto(linkIn(await smtp.waitForMessage(sent, (mail) => mail.to.includes(viewer.email) && mail.subject === 'Your Siteward sign-in link')));
    await stakeholder.page.getByRole('button', { name: 'Sign in' }).click();
    await stakeholder.page.getByRole('heading', { name: 'Join a workspace' }).waitFor();
    await stakeholder.page.getByRole('button', { name: 'Join' }).click();
    await stakeholder.page.getByText('You joined Support team as viewer.').waitFor();
    await stakeholder.page.goto(`${origin}/sites/${teamSite.id}`);
    await stakeholder.page.getByText('You are a viewer in Support team: ask an admin for editor access.').waitFor();
    assert.equal(await stakeholder.page.getByLabel('Name', { exact: true }).isDisabled(), true);

    // A used link and a withdrawn one both say they no longer work.
    for (const used of [editorLink, withdrawnLink]) {
      await stakeholder.page.goto(used);
      await stakeholder.page.getByRole('heading', { name: 'This invitation no longer works' }).waitFor();
    }
    assert.deepEqual(await membersOf(t, owner, team), { [owner.email]: 'owner', 'new.colleague@example.com': 'editor', [viewer.email]: 'viewer' });

    // The admin's screen, loaded again, has nothing left waiting.
    await page.reload();
    await page.getByRole('region', { name: 'Invitations' }).getByText('No invitation is waiting for an answer.').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Members' }).getByRole('combobox', { name: 'Role of new.colleague@example.com' }).inputValue(), 'editor');
  } finally {
    await dashboard.close();
  }
});

test('an admin reads the audit log in words, filters it and downloads it; an editor is told it is for admins', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, page, origin } = dashboard;
  try {
    const owner = await signUp(t.app);
    const editor = await signUp(t.app, 'grace@example.com');
    const team = await createWorkspace(t.app, owner, 'Support');
    const renamed = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${team}`, headers: { authorization: owner.bearer }, payload: { name: 'Support team' } });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(await addMember(t, team, editor, 'viewer'), true);
    const raised = await t.app.inject({ method: 'PATCH', url: `/api/v1/workspaces/${team}/members/${editor.id}`, headers: { authorization: owner.bearer }, payload: { role: 'editor' } });
    assert.equal(raised.statusCode, 200, raised.body);

    await signInPage(page, origin, owner.email);
    await page.goto(`${origin}/settings/workspaces/${team}`);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const rows = page.locator('.audit-list > li');
    await rows.first().waitFor();
    const sentences = (await rows.locator('.list-main > span:first-child').allTextContents()).map((text) => text.replace(owner.email, 'OWNER'));
    assert.deepEqual(sentences, [
      'OWNER changed grace@example.com from viewer to editor',
      'An administrator (command line) added grace@example.com as viewer',
      'OWNER renamed the workspace from Support to Support team',
      'OWNER created the workspace Support',
    ]);
    assert.match((await rows.first().locator('.muted').textContent()) ?? '', /through the API · from 127\.0\.0\.1/);

    await page.getByLabel('Change', { exact: true }).selectOption({ label: 'Role changed' });
    await page.waitForFunction(() => document.querySelectorAll('.audit-list > li').length === 1);
    await page.getByLabel('Made by').selectOption({ label: 'grace@example.com' });
    await page.getByText('No change matches these filters.').waitFor();
    await page.getByLabel('Made by').selectOption({ label: 'Anyone' });
    await page.getByLabel('Change', { exact: true }).selectOption({ label: 'All changes' });
    await page.waitForFunction(() => document.querySelectorAll('.audit-list > li').length === 4);

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download these changes' }).click();
    const download = await downloading;
    assert.match(download.suggestedFilename(), /^audit-log-Support-team-\d{4}-\d{2}-\d{2}\.ndjson$/);
    const file = await download.path();
    const lines = (await import('node:fs')).readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { action: string });
    assert.deepEqual(lines.map((line) => line.action), ['member.role_changed', 'member.joined', 'workspace.updated', 'workspace.created']);

    const found = await checkBothThemes(dashboard, page, 'workspace-audit-log', async () => {
      await page.reload();
      await page.locator('.audit-list > li').first().waitFor();
    });
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);

    const second = await dashboard.newDevice();
    await signInPage(second.page, origin, editor.email);
    await second.page.goto(`${origin}/settings/workspaces/${team}/audit-log`);
    await second.page.getByText('Only admins and owners of this workspace read its audit log.').waitFor();
    await second.page.goto(`${origin}/settings/workspaces/${team}`);
    await second.page.getByRole('heading', { name: 'Support team', level: 1 }).waitFor();
    assert.equal(await second.page.getByRole('link', { name: 'Audit log' }).count(), 0);
  } finally {
    await dashboard.close();
  }
});
