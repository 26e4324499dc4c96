import { describe, expect, test } from 'vitest';
import { actorName, auditSentence, type AuditEvent, scheduledFailureReason, viaText } from './auditText';

function event(overrides: Partial<AuditEvent>): AuditEvent {
  return {
    id: '019ab3c4-0000-7000-8000-000000000000',
    at: '2026-11-23T10:15:00.000Z',
    action: 'member.role_changed',
    actor: { id: 'ada', email: 'ada@example.com', name: 'Ada' },
    via: { type: 'session' },
    ip: '203.0.113.7',
    user_agent: 'Mozilla/5.0',
    target: { type: 'member', id: 'grace', name: 'grace@example.com' },
    details: {},
    ...overrides,
  };
}

describe('the audit log in words', () => {
  test('says what changed, from and to', () => {
    expect(auditSentence(event({ details: { role: { before: 'editor', after: 'admin' } } }))).toBe('changed grace@example.com from editor to admin');
    expect(auditSentence(event({ action: 'workspace.updated', target: { type: 'workspace', id: 'w', name: 'Team' }, details: { name: { before: 'Old', after: 'Team' } } }))).toBe(
      'renamed the workspace from Old to Team',
    );
    expect(auditSentence(event({ action: 'member.invited', target: { type: 'invitation', id: 'i', name: 'new@example.com' }, details: { role: 'viewer' } }))).toBe('invited new@example.com as viewer');
  });

  test('an invitation withdrawn by hand, and one withdrawn with its sender\'s right to invite', () => {
    const invitation = { type: 'invitation' as const, id: 'i', name: 'new@example.com' };
    expect(auditSentence(event({ action: 'invitation.revoked', target: invitation }))).toBe('withdrew the invitation to new@example.com');
    expect(auditSentence(event({ action: 'invitation.revoked', target: invitation, details: { role: 'admin', withdrawn_because: 'inviter_removed' } }))).toBe(
      'withdrew the invitation to new@example.com, as its sender can no longer invite',
    );
  });

  test('the requirement of two-factor authentication turned on and off', () => {
    const workspace = { type: 'workspace' as const, id: 'w', name: 'Team' };
    expect(auditSentence(event({ action: 'workspace.updated', target: workspace, details: { require_two_factor: { before: false, after: true } } }))).toBe('required two-factor authentication of every member of Team');
    expect(auditSentence(event({ action: 'workspace.updated', target: workspace, details: { require_two_factor: { before: true, after: false } } }))).toBe('stopped requiring two-factor authentication in Team');
  });

  test('a site to the trash and back, and a version restored', () => {
    const site = { type: 'site' as const, id: 's', name: 'Help desk' };
    expect(auditSentence(event({ action: 'site.deleted', target: site }))).toBe('moved the site Help desk to the trash');
    expect(auditSentence(event({ action: 'site.restored', target: site, details: { version: 4, from: 'trash' } }))).toBe('brought the site Help desk back from the trash');
    expect(auditSentence(event({ action: 'site.restored', target: site, details: { version: 5, restored_from: 2 } }))).toBe('restored version 2 of the site Help desk');
    expect(auditSentence(event({ action: 'site.public_key_rotated', target: site, details: { version: 6 } }))).toBe(
      'rotated the public key of the site Help desk (the old key works for 24 hours)',
    );
  });

  test('Siteward noticing a partner connection break and a failing webhook', () => {
    const site = { type: 'site' as const, id: 's', name: 'Help desk' };
    const system = { actor: null, via: { type: 'system' as const } };
    const broke = event({ ...system, action: 'partner.status_changed', target: site, details: { status: { before: 'ok', after: 'error' } } });
    expect([actorName(broke), auditSentence(broke)]).toEqual(['Siteward', 'saw the partner connection of Help desk stop working']);
    expect(auditSentence(event({ ...system, action: 'partner.status_changed', target: site, details: { status: { before: 'error', after: 'ok' } } }))).toBe(
      'saw the partner connection of Help desk work again',
    );
    const hook = { type: 'webhook' as const, id: 'h', name: 'https://hooks.example/in' };
    expect(auditSentence(event({ ...system, action: 'webhook.disabled', target: hook, details: { reason: 'failing' } }))).toBe(
      'turned off the webhook to https://hooks.example/in after 3 days of failed deliveries',
    );
    expect(auditSentence(event({ action: 'webhook.secret_rotated', target: hook }))).toBe('rotated the signing secret of the webhook to https://hooks.example/in');
  });

  test('a member joining by invitation, and one added by an administrator', () => {
    const joined = event({ action: 'member.joined', actor: { id: 'grace', email: 'grace@example.com', name: '' }, details: { role: 'editor', invitation_id: 'i' } });
    expect([actorName(joined), auditSentence(joined)]).toEqual(['grace@example.com', 'joined as editor, by invitation']);
    const added = event({ action: 'member.joined', actor: null, via: { type: 'cli' }, details: { role: 'viewer' } });
    expect([actorName(added), auditSentence(added)]).toEqual(['An administrator (command line)', 'added grace@example.com as viewer']);
  });

  test('each step of a change request, the scheduled one that failed included', () => {
    const request = { type: 'change_request' as const, id: 'cr', name: 'Warmer greeting' };
    expect(auditSentence(event({ action: 'change_request.opened', target: request, details: { site_id: 's', paths: ['/widget'] } }))).toBe('proposed the change “Warmer greeting”');
    expect(auditSentence(event({ action: 'change_request.approved', target: request, details: { site_id: 's' } }))).toBe('approved the change “Warmer greeting”');
    expect(auditSentence(event({ action: 'change_request.declined', target: request, details: { site_id: 's' } }))).toBe('declined the change “Warmer greeting”');
    expect(auditSentence(event({ action: 'change_request.applied', target: request, details: { site_id: 's', version: 7 } }))).toBe('applied the change “Warmer greeting”, making version 7');
    const failed = { action: 'change_request.failed' as const, actor: null, via: { type: 'system' as const }, target: request };
    expect(auditSentence(event({ ...failed, details: { site_id: 's', reason: 'site_in_trash' } }))).toBe('could not apply the scheduled change “Warmer greeting”: the site was in the trash');
    expect(auditSentence(event({ ...failed, details: { site_id: 's', reason: 'change_request_conflict', paths: ['/widget'] } }))).toBe(
      'could not apply the scheduled change “Warmer greeting”: the site had changed at the same settings',
    );
    expect(auditSentence(event({ ...failed, details: {} }))).toBe('could not apply the scheduled change “Warmer greeting”');
    // The checks a due change passes again, each with its own reason.
    for (const reason of ['approvals_missing', 'author_not_allowed', 'two_factor_required']) {
      const sentence = auditSentence(event({ ...failed, details: { site_id: 's', reason } }));
      expect(sentence).toMatch(/^could not apply the scheduled change “Warmer greeting”: \S/);
      expect(sentence).toBe(`could not apply the scheduled change “Warmer greeting”: ${scheduledFailureReason(reason)}`);
    }
    expect(scheduledFailureReason('approvals_missing')).toMatch(/approvals/);
    expect(scheduledFailureReason('author_not_allowed')).toMatch(/author/);
    expect(scheduledFailureReason('two_factor_required')).toMatch(/two-factor/);
    expect(scheduledFailureReason('something_new')).toBeUndefined();
  });

  test('details of an unexpected shape still read as a sentence', () => {
    expect(auditSentence(event({ details: { role: 'surprise' } }))).toBe('changed the role of grace@example.com');
    expect(auditSentence(event({ action: 'member.removed', details: {} }))).toBe('removed grace@example.com (another role)');
  });

  test('names the credential when it was not the dashboard', () => {
    expect(viaText(event({}))).toBeUndefined();
    expect(viaText(event({ via: { type: 'jwt' } }))).toBe('through the API');
    expect(viaText(event({ via: { type: 'access_token', access_token: { id: 't', name: 'deploy bot' } } }))).toBe('with the access token “deploy bot”');
  });
});
