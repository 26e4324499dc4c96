import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createAccessToken, createUserAsOperator, ManualClock, sessionCookie, signUp, signUpConfirmed, type SignedUpUser, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { freePort, startServer, stopServer } from '../../test/processes.js';
import { startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';
import { AUTH_ERRORS } from '../auth/errors.js';
import { newId } from '../lib/ids.js';
import { PAGINATION_ERRORS } from '../pagination/errors.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { WorkspaceService } from '../workspaces/service.js';
import type { AuditEventJson, AuditLogPageJson } from './schema.js';

// The workspace audit log over real HTTP, on SQLite and (with TEST_DATABASE_URL) PostgreSQL: each
// change leaves one event with who, how and from where, in the change's transaction; refusals
// leave none; only admins read it; pages, filters and the NDJSON export agree.

let t: TestApp;
let smtp: TestSmtpServer;
let base: string;

beforeEach(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: { SMTP_URL: smtp.url } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await t.close();
  await smtp.close();
});

const USER_AGENT = 'audit-test/1.0';

async function call(method: string, url: string, authorization: string, json?: unknown, accept?: string): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string> = { authorization, 'user-agent': USER_AGENT };
  if (json !== undefined) headers['content-type'] = 'application/json';
  if (accept !== undefined) headers.accept = accept;
  const response = await fetch(`${base}${url}`, { method, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function ok<T>(method: string, url: string, authorization: string, json?: unknown, status = 200): Promise<T> {
  const answer = await call(method, url, authorization, json);
  assert.equal(answer.status, status, `${method} ${url}: ${answer.text}`);
  return (answer.text === '' ? undefined : JSON.parse(answer.text)) as T;
}

async function problem(method: string, url: string, authorization: string, status: number, code: string, json?: unknown): Promise<void> {
  const answer = await call(method, url, authorization, json);
  assert.equal(answer.status, status, `${method} ${url}: ${answer.text}`);
  assert.equal((JSON.parse(answer.text) as { code: string }).code, code);
}

function logUrl(workspaceId: string, query = ''): string {
  return `/api/v1/workspaces/${workspaceId}/audit-log${query}`;
}

async function readLog(owner: SignedUpUser, workspaceId: string, query = ''): Promise<AuditEventJson[]> {
  return (await ok<AuditLogPageJson>('GET', logUrl(workspaceId, query), owner.bearer)).events;
}

async function createWorkspace(owner: SignedUpUser, name = 'Support team'): Promise<string> {
  return (await ok<{ workspace: { id: string } }>('POST', '/api/v1/workspaces', owner.bearer, { name }, 201)).workspace.id;
}

function workspaceService(): WorkspaceService {
  return new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
}

async function invitationToken(workspaceId: string, admin: SignedUpUser, email: string, role: string): Promise<{ id: string; token: string }> {
  const before = smtp.messages.length;
  const { invitation } = await ok<{ invitation: { id: string } }>('POST', `/api/v1/workspaces/${workspaceId}/invitations`, admin.bearer, { email, role }, 201);
  const link = /invitations\/accept\?token=([A-Za-z0-9_-]+)/;
  const mail = await smtp.waitForMessage(before, (message) => message.to.includes(email) && link.test(message.text));
  const token = link.exec(mail.text)?.[1];
  assert.ok(token !== undefined, mail.text);
  return { id: invitation.id, token };
}

describe('the audit log records', () => {
  test('each change to a workspace, its members and invitations, with who, which credential and from where', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const colleague = await signUp(t.app, 'colleague@example.com');
    const other = await signUp(t.app, 'other@example.com');
    const team = await createWorkspace(owner, 'Support');
    await ok('PATCH', `/api/v1/workspaces/${team}`, owner.bearer, { name: 'Support team' });
    const invited = await invitationToken(team, owner, 'colleague@example.com', 'editor');
    const withdrawn = await invitationToken(team, owner, 'someone@example.com', 'viewer');
    await ok('DELETE', `/api/v1/workspaces/${team}/invitations/${withdrawn.id}`, owner.bearer, undefined, 204);
    await ok('POST', '/api/v1/invitations/accept', colleague.bearer, { token: invited.token });
    await ok('PATCH', `/api/v1/workspaces/${team}/members/${colleague.id}`, owner.bearer, { role: 'admin' });
    assert.equal(await workspaceService().addMember(team, other.id, 'viewer'), true, 'as the command line adds one');
    await ok('DELETE', `/api/v1/workspaces/${team}/members/${other.id}`, colleague.bearer, undefined, 204);
    await ok('DELETE', `/api/v1/workspaces/${team}/members/${colleague.id}`, colleague.bearer, undefined, 204);

    const events = (await readLog(owner, team)).reverse();
    assert.deepEqual(
      events.map((event) => [event.action, event.actor?.email ?? null, event.target.type, event.target.name]),
      [
        ['workspace.created', owner.email, 'workspace', 'Support'],
        ['workspace.updated', owner.email, 'workspace', 'Support team'],
        ['member.invited', owner.email, 'invitation', 'colleague@example.com'],
        ['member.invited', owner.email, 'invitation', 'someone@example.com'],
        ['invitation.revoked', owner.email, 'invitation', 'someone@example.com'],
        ['member.joined', colleague.email, 'member', colleague.email],
        ['member.role_changed', owner.email, 'member', colleague.email],
        ['member.joined', null, 'member', other.email],
        ['member.removed', colleague.email, 'member', other.email],
        ['member.left', colleague.email, 'member', colleague.email],
      ],
    );
    const byAction = (action: string) => events.filter((event) => event.action === action);
    assert.deepEqual(byAction('workspace.updated')[0]?.details, { name: { before: 'Support', after: 'Support team' } });
    assert.deepEqual(byAction('member.role_changed')[0]?.details, { role: { before: 'editor', after: 'admin' } });
    assert.deepEqual(byAction('member.invited')[0]?.details, { role: 'editor' });
    assert.deepEqual(byAction('member.joined')[0]?.details, { role: 'editor', invitation_id: invited.id });
    assert.deepEqual(byAction('member.removed')[0]?.details, { role: 'viewer' });
    for (const event of events) {
      if (event.actor === null) {
        assert.deepEqual([event.via, event.ip, event.user_agent], [{ type: 'cli' }, null, null], 'the command line has no address');
        continue;
      }
      assert.deepEqual(event.via, { type: 'jwt' });
      assert.equal(event.ip, '127.0.0.1');
      assert.equal(event.user_agent, USER_AGENT);
      assert.ok(Date.parse(event.at) > 0);
    }
    // No event carries the invitation's token.
    const everything = JSON.stringify(await readLog(owner, team));
    assert.ok(!everything.includes(invited.token) && !everything.includes(withdrawn.token));
  });

  test('each site created, changed and deleted, with the changed paths and how the partner token changed, never its value', async () => {
    const owner = await signUp(t.app);
    const team = await createWorkspace(owner);
    const token = await createAccessToken(t.app, owner);
    const secret = 'partner-secret-never-logged-42';
    const { site } = await ok<{ site: { id: string } }>('POST', '/api/v1/sites', owner.bearer, { name: 'Help desk', workspace_id: team }, 201);
    await ok('PUT', `/api/v1/sites/${site.id}`, token.header, { name: 'Help desk 2', ai_settings: '{"model":"large"}', partner_settings: { base_url: 'https://partner.example', access_token: secret } });
    await ok('PUT', `/api/v1/sites/${site.id}`, owner.bearer, { partner_settings: { access_token: `${secret}-rotated` } });
    await ok('PUT', `/api/v1/sites/${site.id}`, owner.bearer, { partner_settings: { access_token: null } });
    // Refused: a stale If-Match, and bad input.
    const stale = await fetch(`${base}/api/v1/sites/${site.id}`, { method: 'PUT', headers: { authorization: owner.bearer, 'content-type': 'application/json', 'if-match': '"1"' }, body: JSON.stringify({ name: 'Late' }) });
    assert.equal(stale.status, 412);
    await problem('PUT', `/api/v1/sites/${site.id}`, owner.bearer, 400, 'validation_failed', { color: 'not a colour' });
    await ok('DELETE', `/api/v1/sites/${site.id}`, owner.bearer, undefined, 204);

    const events = (await readLog(owner, team, '?limit=200')).filter((event) => event.target.type === 'site').reverse();
    assert.deepEqual(
      events.map((event) => [event.action, event.target.name, event.details]),
      [
        ['site.created', 'Help desk', { version: 1 }],
        ['site.updated', 'Help desk 2', { version: 2, changed: ['/name', '/ai_settings', '/partner_settings/base_url', '/partner_settings/access_token'], access_token: 'set' }],
        ['site.updated', 'Help desk 2', { version: 3, changed: ['/partner_settings/access_token'], access_token: 'replaced' }],
        ['site.updated', 'Help desk 2', { version: 4, changed: ['/partner_settings/access_token'], access_token: 'cleared' }],
        ['site.deleted', 'Help desk 2', {}],
      ],
    );
    assert.deepEqual(events[1]?.via, { type: 'access_token', access_token: { id: token.id, name: 'test token' } });
    assert.deepEqual(events[0]?.via, { type: 'jwt' });
    const stored = JSON.stringify(await t.database.db.selectFrom('audit_events').selectAll().execute());
    assert.ok(!stored.includes(secret), 'no event row holds the partner token');
    const ciphertexts = await t.database.db.selectFrom('sites').select('partner_access_token').execute();
    for (const { partner_access_token: ciphertext } of ciphertexts) assert.ok(ciphertext === null || !stored.includes(ciphertext));
  });

  test('the web session as the credential of a change made in the dashboard', async () => {
    const owner = await signUp(t.app);
    // The dashboard's requests: the session cookie, from the app's own origin (PUBLIC_URL).
    const origin = 'http://localhost:3000';
    const signIn = await fetch(`${base}/auth/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ email: owner.email, password: STRONG_PASSWORD }) });
    assert.equal(signIn.status, 200);
    const cookie = sessionCookie(signIn.headers.getSetCookie());
    assert.ok(cookie !== undefined);
    const created = await fetch(`${base}/api/v1/workspaces`, { method: 'POST', headers: { cookie: cookie.header, origin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'From the dashboard' }) });
    const body = await created.text();
    assert.equal(created.status, 201, body);
    const { workspace } = JSON.parse(body) as { workspace: { id: string } };
    const [event] = await readLog(owner, workspace.id);
    assert.deepEqual([event?.action, event?.via], ['workspace.created', { type: 'session' }]);
  });

  test('nothing for a change that was refused or failed', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const viewer = await signUp(t.app);
    const team = await createWorkspace(owner);
    await workspaceService().addMember(team, viewer.id, 'viewer');
    const before = await readLog(owner, team);

    await problem('PATCH', `/api/v1/workspaces/${team}`, viewer.bearer, 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE, { name: 'Mine now' });
    await problem('PATCH', `/api/v1/workspaces/${team}/members/${owner.id}`, viewer.bearer, 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE, { role: 'viewer' });
    await problem('DELETE', `/api/v1/workspaces/${team}/members/${owner.id}`, owner.bearer, 409, WORKSPACE_ERRORS.LAST_OWNER);
    await problem('POST', `/api/v1/workspaces/${team}/invitations`, owner.bearer, 409, WORKSPACE_ERRORS.ALREADY_MEMBER, { email: viewer.email, role: 'editor' });
    await problem('DELETE', `/api/v1/workspaces/${team}/invitations/${newId()}`, owner.bearer, 404, WORKSPACE_ERRORS.INVITATION_NOT_FOUND);
    // The same role again is no change.
    await ok('PATCH', `/api/v1/workspaces/${team}/members/${viewer.id}`, owner.bearer, { role: 'viewer' });

    assert.deepEqual(await readLog(owner, team), before);
  });
});

describe('reading the audit log', () => {
  test('admins only: an editor gets 403, a non-member 404, an access token 403, as for an unknown workspace', async () => {
    const owner = await signUp(t.app);
    const admin = await signUp(t.app);
    const editor = await signUp(t.app);
    const stranger = await signUp(t.app);
    const team = await createWorkspace(owner);
    await workspaceService().addMember(team, admin.id, 'admin');
    await workspaceService().addMember(team, editor.id, 'editor');

    assert.equal((await readLog(admin, team)).length, 3);
    await problem('GET', logUrl(team), editor.bearer, 403, WORKSPACE_ERRORS.INSUFFICIENT_ROLE);
    await problem('GET', logUrl(team), stranger.bearer, 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    await problem('GET', logUrl(newId()), owner.bearer, 404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND);
    const token = await createAccessToken(t.app, owner);
    await problem('GET', logUrl(team), token.header, 403, AUTH_ERRORS.ACCESS_TOKEN_NOT_ALLOWED);
    const ndjson = await call('GET', logUrl(team), stranger.bearer, undefined, 'application/x-ndjson');
    assert.equal(ndjson.status, 404, 'the export is refused before it starts');
    assert.match(ndjson.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });

  test('pages by cursor without gaps or repeats, filters by action and actor, and refuses bad queries', async () => {
    const owner = await signUp(t.app);
    const admin = await signUp(t.app);
    const team = await createWorkspace(owner, 'Name 0');
    await workspaceService().addMember(team, admin.id, 'admin');
    for (let index = 1; index <= 22; index++) await ok('PATCH', `/api/v1/workspaces/${team}`, owner.bearer, { name: `Name ${index}` });
    const members = await Promise.all(Array.from({ length: 21 }, (_, index) => createUserAsOperator(t, `member${index}@example.com`)));
    for (const member of members) await workspaceService().addMember(team, member.id, 'viewer');
    // 1 creation + 1 admin + 22 renames + 21 members.
    const seen: AuditEventJson[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=20${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page: AuditLogPageJson = await ok<AuditLogPageJson>('GET', logUrl(team, query), admin.bearer);
      seen.push(...page.events);
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    assert.equal(pages, 3);
    assert.equal(seen.length, 45);
    assert.equal(new Set(seen.map((event) => event.id)).size, 45);
    assert.deepEqual(seen.map((event) => event.id), seen.map((event) => event.id).sort().reverse(), 'newest first');

    const renames = await readLog(admin, team, '?action=workspace.updated&limit=200');
    assert.equal(renames.length, 22);
    assert.equal(renames[0]?.target.name, 'Name 22');
    const byOwner = await readLog(admin, team, `?actor_id=${owner.id}&limit=200`);
    assert.equal(byOwner.length, 23);
    assert.ok(byOwner.every((event) => event.actor?.id === owner.id));
    assert.deepEqual(await readLog(admin, team, `?actor_id=${admin.id}`), []);

    for (const query of ['?limit=0', '?limit=201', '?limit=ten', '?action=site.exploded', '?cursor=' + 'x'.repeat(65), '?colour=blue']) {
      const answer = await call('GET', logUrl(team, query), admin.bearer);
      assert.equal(answer.status, 400, `${query}: ${answer.text}`);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }
    await problem('GET', logUrl(team, '?cursor=not-a-cursor'), admin.bearer, 400, PAGINATION_ERRORS.INVALID_CURSOR);
  });

  test('as NDJSON: every matching event, one per line, the same as the pages', async () => {
    const owner = await signUp(t.app);
    const team = await createWorkspace(owner, 'Name 0');
    for (let index = 1; index <= 5; index++) await ok('PATCH', `/api/v1/workspaces/${team}`, owner.bearer, { name: `Name ${index}` });
    const answer = await call('GET', logUrl(team, '?action=workspace.updated'), owner.bearer, undefined, 'application/x-ndjson');
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    assert.ok(answer.text.endsWith('\n'));
    const lines = answer.text.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEventJson);
    assert.deepEqual(lines, await readLog(owner, team, '?action=workspace.updated'));
    assert.equal(lines.length, 5);
  });
});

/** The process's resident set in bytes, read from /proc (Linux). */
function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

test('the NDJSON export of 100,000 events streams from a real server in bounded memory', { timeout: 300_000 }, async (context) => {
  // The log is written here; a server started as `npm start` starts it (same data directory and
  // database) serves the export, so its memory is measured alone.
  await t.close();
  t = await buildTestApp({ env: { SMTP_URL: smtp.url }, clock: new ManualClock(Date.now()) });
  const owner = await signUp(t.app);
  const team = (await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Busy' } })).json<{ workspace: { id: string } }>().workspace.id;
  const TOTAL = 100_000;
  // Each event carries about 1 KB of details, so the whole export is over 100 MB: holding it in
  // memory would show in the server's size.
  const details = JSON.stringify({ paths: Array.from({ length: 40 }, (_, index) => `/ai_settings/instructions/${index}`) });
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  for (let batch = 0; batch < TOTAL / 1000; batch++) {
    const rows = Array.from({ length: 1000 }, (_, index) => {
      const at = new Date(start + batch * 1000 + index);
      return {
        id: newId(at),
        workspace_id: team,
        at: at.toISOString(),
        action: 'site.updated',
        actor_id: owner.id,
        actor_email: owner.email,
        actor_name: '',
        via_type: 'jwt' as const,
        via_token_id: null,
        via_token_name: null,
        ip: '127.0.0.1',
        user_agent: USER_AGENT,
        target_type: 'site',
        target_id: newId(at),
        target_name: `Site ${batch}`,
        details,
      };
    });
    await t.database.db.insertInto('audit_events').values(rows).execute();
  }

  const port = await freePort();
  const database: Record<string, string> = t.config.database.kind === 'postgres' ? { DATABASE_URL: t.config.database.url } : {};
  // The node flags of `npm start`.
  const server = await startServer(port, { DATA_DIR: t.dataDir, PUBLIC_URL: t.config.publicUrl, ...database }, ['--max-semi-space-size=2', '--heap-growing-percent=25']);
  const pid = server.process.pid ?? 0;
  let bytes = 0;
  let lines = 0;
  let first: AuditEventJson | undefined;
  let peak = 0;
  let baseline = 0;
  try {
    const url = `${server.base}${logUrl(team, '?action=site.updated')}`;
    const headers = { authorization: owner.bearer, accept: 'application/x-ndjson' };
    // Warmed up by a short export, so the baseline includes the code and connections it uses.
    assert.equal((await fetch(`${url}&actor_id=${newId()}`, { headers })).status, 200);
    baseline = residentBytes(pid);
    peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(pid));
    }, 10);
    try {
      const response = await fetch(url, { headers });
      assert.equal(response.status, 200);
      assert.ok(response.body !== null);
      const decoder = new TextDecoder();
      let partial = '';
      // Read and dropped as it arrives, as a client piping it to a file would.
      for await (const chunk of response.body) {
        bytes += chunk.byteLength;
        partial += decoder.decode(chunk, { stream: true });
        const cut = partial.lastIndexOf('\n');
        if (cut < 0) continue;
        const complete = partial.slice(0, cut);
        partial = partial.slice(cut + 1);
        if (first === undefined) first = JSON.parse(complete.split('\n')[0] ?? '') as AuditEventJson;
        lines += complete.split('\n').length;
      }
      assert.equal(partial, '');
    } finally {
      clearInterval(sampler);
    }
  } finally {
    assert.equal(await stopServer(server), 0);
  }
  const growthMb = (peak - baseline) / 1024 / 1024;
  const exportMb = bytes / 1024 / 1024;
  context.diagnostic(`exported ${lines} events, ${exportMb.toFixed(0)} MB; the server's RSS was ${(baseline / 1024 / 1024).toFixed(0)} MB before and at most ${(peak / 1024 / 1024).toFixed(0)} MB during`);
  assert.equal(lines, TOTAL);
  assert.equal(first?.target.name, `Site ${TOTAL / 1000 - 1}`, 'newest first');
  assert.ok(exportMb > 100, `${exportMb} MB exported`);
  // The server holds a batch or two at a time, never the export.
  assert.ok(growthMb < exportMb / 4, `the server grew by ${growthMb.toFixed(0)} MB while exporting ${exportMb.toFixed(0)} MB`);
});
