import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { until } from '../../test/wait.js';
import { buildTestAppWithMail, createSite, type SignedUpUser, signUp, TEST_MAIL_RETRY_DELAYS_MS, type TestApp } from '../../test/helpers.js';
import type { TestSmtpServer } from '../../test/smtp.js';
import { Mailer, SmtpTransport } from '../mail/mailer.js';
import { SecretBox } from '../lib/crypto.js';
import { SiteService } from '../sites/service.js';
import { WorkspaceService } from '../workspaces/service.js';
import { CHANGE_REQUEST_ERRORS } from './errors.js';
import { DEFAULT_SCHEDULED_CHANGES_OPTIONS, ScheduledChanges, type ScheduledChangesOptions } from './scheduler.js';
import { ChangeRequestService } from './service.js';

/**
 * Scheduled change requests, applied by schedulers that share one database as app servers do. The
 * app's own scheduler is paced out of the way; the tests move the clock and drain by hand.
 */

let t: TestApp;
let smtp: TestSmtpServer;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail({ scheduledChanges: { pollIntervalMs: 3_600_000 } })));
afterEach(() => t.close());

/** A scheduler as another app server runs it: its own services over the same database. */
function scheduler(options: Partial<ScheduledChangesOptions> = {}, service: typeof ChangeRequestService = ChangeRequestService): ScheduledChanges {
  const secrets = new SecretBox(t.config.encryptionKey);
  const deps = { db: t.database.db, dialect: t.database.dialect, clock: t.clock, secrets, cache: t.cache };
  const sites = new SiteService(deps);
  const mailer = new Mailer(new SmtpTransport(smtp.url), t.config.mailFrom, t.app.log, { retryDelaysMs: TEST_MAIL_RETRY_DELAYS_MS });
  const changeRequests = new service({ ...deps, sites, mailer, publicUrl: t.config.publicUrl });
  return new ScheduledChanges({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, changeRequests, onError: (error) => assert.fail(String(error)) }, options);
}

/**
 * A scheduler whose applies wait at a gate once they have begun: it holds its claim for as long as
 * the test likes, as a server does whose apply is slow, or (when it never renews) one that died.
 */
function gatedScheduler(options: Partial<ScheduledChangesOptions>): { runner: ScheduledChanges; started: Promise<void>; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let began!: () => void;
  const started = new Promise<void>((resolve) => (began = resolve));
  class GatedChangeRequests extends ChangeRequestService {
    override async applyScheduled(claimed: { id: string; site_id: string; workspace_id: string }, leaseOwner: string): Promise<void> {
      began();
      await gate;
      return super.applyScheduled(claimed, leaseOwner);
    }
  }
  return { runner: scheduler(options, GatedChangeRequests), started, open };
}

async function leaseOf(id: string): Promise<{ lease_owner: string | null; lease_until: string | null }> {
  return t.database.db.selectFrom('change_requests').select(['lease_owner', 'lease_until']).where('id', '=', id).executeTakeFirstOrThrow();
}

async function versionCount(site: string): Promise<number> {
  return (await t.database.db.selectFrom('site_versions').select('version').where('site_id', '=', site).execute()).length;
}

interface Setup {
  owner: SignedUpUser;
  author: SignedUpUser;
  site: string;
}

async function setup(): Promise<Setup> {
  const owner = await signUp(t.app);
  const author = await signUp(t.app);
  const workspace = (await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { authorization: owner.bearer }, payload: { name: 'Schedules' } })).json().workspace.id as string;
  await new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).addMember(workspace, author.id, 'editor');
  const site = await createSite(t.app, owner.bearer, { name: 'Scheduled site', workspace_id: workspace });
  return { owner, author, site: site.id };
}

async function schedule(s: Setup, changes: Record<string, unknown>, inMs: number): Promise<string> {
  const opened = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${s.site}/change-requests`, headers: { authorization: s.author.bearer }, payload: { title: 'Night release', changes } });
  assert.equal(opened.statusCode, 201, opened.body);
  const id = opened.json().change_request.id as string;
  const at = new Date(t.clock.now().getTime() + inMs).toISOString();
  const scheduled = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${s.site}/change-requests/${id}/apply`, headers: { authorization: s.author.bearer }, payload: { at } });
  assert.equal(scheduled.json().change_request.status, 'scheduled', scheduled.body);
  return id;
}

async function requestOf(s: Setup, id: string): Promise<{ status: string; applied_version: number | null; failure: { code: string; conflicts?: unknown[] } | null }> {
  return (await t.app.inject({ method: 'GET', url: `/api/v1/sites/${s.site}/change-requests/${id}`, headers: { authorization: s.owner.bearer } })).json().change_request;
}

test('a scheduled request is applied once it is due, once, by one of two schedulers draining together', async () => {
  const s = await setup();
  const id = await schedule(s, { ai_settings: 'Scheduled AI' }, 3_600_000);
  const [first, second] = [scheduler(), scheduler()];
  assert.deepEqual(await Promise.all([first.drain(), second.drain()]), [0, 0], 'nothing is due yet');
  assert.equal((await requestOf(s, id)).status, 'scheduled');
  t.clock.advance(3_600_000);
  const handled = await Promise.all([first.drain(), second.drain()]);
  assert.equal(handled[0] + handled[1], 1, `claimed once: ${handled.join()}`);
  const request = await requestOf(s, id);
  assert.deepEqual([request.status, request.applied_version], ['applied', 2]);
  const versions = await t.database.db.selectFrom('site_versions').select(['version', 'via_type', 'changes']).where('site_id', '=', s.site).orderBy('version').execute();
  assert.equal(versions.length, 2);
  assert.equal(versions[1]?.via_type, 'system');
  assert.equal((JSON.parse(versions[1]?.changes ?? '{}') as { change_request: { id: string } }).change_request.id, id);
  const site = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${s.site}`, headers: { authorization: s.owner.bearer } });
  assert.equal(site.json().site.ai_settings, 'Scheduled AI');
  assert.deepEqual(await Promise.all([first.drain(), second.drain()]), [0, 0], 'an applied request is not applied again');
  await Promise.all([first.close(), second.close()]);
});

test('a scheduled request that meets a conflict fails, changes nothing and mails its author; one whose site is in the trash fails too', async () => {
  const s = await setup();
  const id = await schedule(s, { ai_settings: 'Proposed' }, 60_000);
  assert.equal((await t.app.inject({ method: 'PUT', url: `/api/v1/sites/${s.site}`, headers: { authorization: s.owner.bearer }, payload: { ai_settings: 'Changed meanwhile' } })).statusCode, 200);
  t.clock.advance(60_000);
  const mailsBefore = smtp.messages.length;
  const runner = scheduler();
  assert.equal(await runner.drain(), 1);
  const request = await requestOf(s, id);
  assert.equal(request.status, 'failed');
  assert.equal(request.failure?.code, CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT);
  assert.deepEqual(request.failure?.conflicts, [{ path: '/ai_settings', base: '', current: 'Changed meanwhile', proposed: 'Proposed' }]);
  const site = await t.app.inject({ method: 'GET', url: `/api/v1/sites/${s.site}`, headers: { authorization: s.owner.bearer } });
  assert.equal(site.json().site.ai_settings, 'Changed meanwhile');
  const mail = await smtp.waitForMessage(mailsBefore, (message) => message.to.includes(s.author.email) && message.subject.startsWith('Scheduled change'));
  assert.equal(mail.subject, 'Scheduled change not applied: Night release');
  assert.match(mail.text, /\/ai_settings/);

  const trashed = await schedule(s, { widget: 'w' }, 60_000);
  assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${s.site}`, headers: { authorization: s.owner.bearer } })).statusCode, 204);
  t.clock.advance(60_000);
  assert.equal(await runner.drain(), 1);
  const row = await t.database.db.selectFrom('change_requests').select(['status', 'failure']).where('id', '=', trashed).executeTakeFirstOrThrow();
  assert.deepEqual([row.status, JSON.parse(row.failure ?? '{}').code], ['failed', CHANGE_REQUEST_ERRORS.SITE_IN_TRASH]);
  const events = await t.database.db.selectFrom('audit_events').select('action').where('action', '=', 'change_request.failed').execute();
  assert.equal(events.length, 2);
  await runner.close();
});

test('a request closed after it was claimed is not applied; a lease that ran out is taken over', async () => {
  const s = await setup();
  const id = await schedule(s, { portal: 'p' }, 1_000);
  t.clock.advance(1_000);
  // A claim whose holder died: the lease runs out and another scheduler takes the request.
  await t.database.db.updateTable('change_requests').set({ lease_owner: 'a server that died', lease_until: new Date(t.clock.now().getTime() + 60_000).toISOString() }).where('id', '=', id).execute();
  const runner = scheduler();
  assert.equal(await runner.drain(), 0, 'a live lease is respected');
  t.clock.advance(60_001);
  assert.equal(await runner.drain(), 1);
  assert.equal((await requestOf(s, id)).status, 'applied');

  const closed = await schedule(s, { portal: 'q' }, 1_000);
  t.clock.advance(1_000);
  const closing = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${s.site}/change-requests/${closed}/close`, headers: { authorization: s.author.bearer } });
  assert.equal(closing.json().change_request.status, 'closed');
  assert.equal(await runner.drain(), 0);
  assert.equal((await requestOf(s, closed)).status, 'closed');
  await runner.close();
});

test('reviewers are mailed when a request opens; its author when it is approved, declined or applied', async () => {
  const s = await setup();
  const from = smtp.messages.length;
  const opened = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${s.site}/change-requests`, headers: { authorization: s.author.bearer }, payload: { title: 'Mail me', changes: { widget: 'm' } } });
  const id = opened.json().change_request.id as string;
  const toReviewer = await smtp.waitForMessage(from, (mail) => mail.subject === 'Change waiting for review: Mail me');
  assert.deepEqual(toReviewer.to, [s.owner.email]);
  assert.match(toReviewer.text, new RegExp(`/sites/${s.site}`));
  const url = `/api/v1/sites/${s.site}/change-requests/${id}`;
  await t.app.inject({ method: 'POST', url: `${url}/approve`, headers: { authorization: s.owner.bearer } });
  assert.deepEqual((await smtp.waitForMessage(from, (mail) => mail.subject === 'Change approved: Mail me')).to, [s.author.email]);
  await t.app.inject({ method: 'POST', url: `${url}/apply`, headers: { authorization: s.owner.bearer }, payload: {} });
  assert.deepEqual((await smtp.waitForMessage(from, (mail) => mail.subject === 'Change applied: Mail me')).to, [s.author.email]);
  const other = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${s.site}/change-requests`, headers: { authorization: s.author.bearer }, payload: { title: 'Not this', changes: { widget: 'n' } } });
  await t.app.inject({ method: 'POST', url: `/api/v1/sites/${s.site}/change-requests/${other.json().change_request.id as string}/decline`, headers: { authorization: s.owner.bearer }, payload: {} });
  assert.deepEqual((await smtp.waitForMessage(from, (mail) => mail.subject === 'Change declined: Not this')).to, [s.author.email]);
  // Nobody is told of what they did themselves: the owner got no approval or decline notices.
  assert.equal(smtp.messages.slice(from).some((mail) => mail.to.includes(s.owner.email) && /approved|declined|applied/.test(mail.subject)), false);
});

test('after the server holding a claim dies, another applies the request once the short lease runs out, and only once', async () => {
  const { leaseMs, pollIntervalMs } = DEFAULT_SCHEDULED_CHANGES_OPTIONS;
  // The bound docs/deployment.md states: the lease, then the next look.
  assert.ok(leaseMs + pollIntervalMs <= 15_000, `${leaseMs} + ${pollIntervalMs}`);
  const s = await setup();
  const id = await schedule(s, { ai_settings: 'After the crash' }, 1_000);
  t.clock.advance(1_000);
  // It claims with the default lease and never renews: from here on it is a server that died.
  const dead = gatedScheduler({ renewIntervalMs: 3_600_000 });
  const claiming = dead.runner.drain();
  await dead.started;
  assert.equal((await leaseOf(id)).lease_owner, dead.runner.owner);

  const survivor = scheduler();
  t.clock.advance(leaseMs - 1);
  assert.equal(await survivor.drain(), 0, 'the lease is still live');
  t.clock.advance(2);
  assert.equal(await survivor.drain(), 1, 'taken over once the lease ran out');
  assert.equal((await requestOf(s, id)).status, 'applied');

  // Should the first server come back to its apply, the lease is no longer its own: no second version.
  dead.open();
  assert.equal(await claiming, 1);
  assert.equal(await versionCount(s.site), 2);
  await Promise.all([dead.runner.close(), survivor.close()]);
});

test('a claim is renewed while its apply runs, so another scheduler does not take it past the first lease', async () => {
  const { leaseMs } = DEFAULT_SCHEDULED_CHANGES_OPTIONS;
  const s = await setup();
  const id = await schedule(s, { widget: 'Slow apply' }, 1_000);
  t.clock.advance(1_000);
  const claimedAt = t.clock.now().getTime();
  // Renews every few milliseconds of real time, against the test's clock.
  const slow = gatedScheduler({ renewIntervalMs: 5 });
  const applying = slow.runner.drain();
  await slow.started;
  assert.equal((await leaseOf(id)).lease_until, new Date(claimedAt + leaseMs).toISOString());

  t.clock.advance(leaseMs - 1_000);
  const renewedTo = new Date(t.clock.now().getTime() + leaseMs).toISOString();
  // Waits for the event: a renewal after the clock moved.
  await until(async () => (await leaseOf(id)).lease_until === renewedTo, 'the lease renewed');
  t.clock.advance(2_000);
  const other = scheduler();
  assert.equal(await other.drain(), 0, 'past the first lease, the renewed one holds');

  slow.open();
  assert.equal(await applying, 1);
  assert.equal((await requestOf(s, id)).status, 'applied');
  assert.deepEqual(await leaseOf(id), { lease_owner: null, lease_until: null });
  assert.equal(await versionCount(s.site), 2);
  assert.equal(await other.drain(), 0);
  await Promise.all([slow.runner.close(), other.close()]);
});
