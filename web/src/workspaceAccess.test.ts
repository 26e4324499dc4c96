import { describe, expect, test } from 'vitest';
import { canRemoveMember, defaultWorkspaceForNewSite, roleWithArticle, rolesOffered, siteAccess } from './workspaceAccess';

describe('site access by role', () => {
  test('a viewer reads only; an editor edits and checks but does not delete; an admin also deletes', () => {
    expect(siteAccess('viewer')).toEqual({ edit: false, delete: false, check: false });
    expect(siteAccess('editor')).toEqual({ edit: true, delete: false, check: true });
    expect(siteAccess('admin')).toEqual({ edit: true, delete: true, check: true });
    expect(siteAccess('owner')).toEqual({ edit: true, delete: true, check: true });
  });

  test('an unknown role may do nothing', () => {
    expect(siteAccess(undefined)).toEqual({ edit: false, delete: false, check: false });
  });
});

describe('the member role select', () => {
  test('an owner may make anyone anything, owners included', () => {
    expect(rolesOffered('owner', 'viewer', false)).toEqual(['owner', 'admin', 'editor', 'viewer']);
    expect(rolesOffered('owner', 'owner', false)).toEqual(['owner', 'admin', 'editor', 'viewer']);
  });

  test('an admin manages members below owner, and cannot make or unmake owners', () => {
    expect(rolesOffered('admin', 'editor', false)).toEqual(['admin', 'editor', 'viewer']);
    expect(rolesOffered('admin', 'owner', false)).toEqual([]);
  });

  test('editors and viewers change no one, and no one changes their own role from the list', () => {
    expect(rolesOffered('editor', 'viewer', false)).toEqual([]);
    expect(rolesOffered('viewer', 'viewer', false)).toEqual([]);
    expect(rolesOffered('owner', 'owner', true)).toEqual([]);
  });

  test('removing: admins remove members below owner, owners remove owners, nobody removes themselves from the list', () => {
    expect(canRemoveMember('admin', 'viewer', false)).toBe(true);
    expect(canRemoveMember('admin', 'owner', false)).toBe(false);
    expect(canRemoveMember('owner', 'owner', false)).toBe(true);
    expect(canRemoveMember('editor', 'viewer', false)).toBe(false);
    expect(canRemoveMember('owner', 'owner', true)).toBe(false);
  });
});

describe('the new site dialog', () => {
  const personal = { id: 'p', role: 'owner', personal: true } as const;
  const team = { id: 't', role: 'editor', personal: false } as const;
  const readOnly = { id: 'r', role: 'viewer', personal: false } as const;

  test('starts in the selected workspace when sites may be created there', () => {
    expect(defaultWorkspaceForNewSite([personal, team, readOnly], 't')).toBe(team);
  });

  test('falls back to the personal workspace when none is selected or the selected one is read-only', () => {
    expect(defaultWorkspaceForNewSite([team, personal], null)).toBe(personal);
    expect(defaultWorkspaceForNewSite([team, personal, readOnly], 'r')).toBe(personal);
  });
});

test('roles read as words in a sentence', () => {
  expect(roleWithArticle('viewer')).toBe('a viewer');
  expect(roleWithArticle('admin')).toBe('an admin');
});
