import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkspaceRole } from '../memberships/contract.js';
import { compactMemberships, OneMembership } from './one-membership.js';

const WORKSPACE = '0190f5a2-8d3c-7000-8000-00000000000a';
const OTHER = '0190f5a2-8d3c-7000-8000-00000000000b';

test('one membership reads as the Map it replaces', () => {
  const map = new Map<string, WorkspaceRole>([[WORKSPACE, 'editor']]);
  const one = compactMemberships(map);
  assert.ok(one instanceof OneMembership);
  assert.equal(one.size, 1);
  assert.equal(one.get(WORKSPACE), 'editor');
  assert.equal(one.get(OTHER), undefined);
  assert.equal(one.has(WORKSPACE), true);
  assert.equal(one.has(OTHER), false);
  assert.deepEqual([...one], [...map]);
  assert.deepEqual([...one.keys()], [WORKSPACE]);
  assert.deepEqual([...one.values()], ['editor']);
  assert.deepEqual([...one.entries()], [[WORKSPACE, 'editor']]);
  const seen: Array<[string, WorkspaceRole]> = [];
  one.forEach((role, workspaceId) => seen.push([workspaceId, role]));
  assert.deepEqual(seen, [[WORKSPACE, 'editor']]);
});

test('no membership, or several, are kept as they are', () => {
  const none = new Map<string, WorkspaceRole>();
  const several = new Map<string, WorkspaceRole>([
    [WORKSPACE, 'owner'],
    [OTHER, 'viewer'],
  ]);
  assert.equal(compactMemberships(none), none);
  assert.equal(compactMemberships(several), several);
});
