import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeTag, membershipsTag, userTag, workspaceTag } from '../cache/change-feed.js';
import type { UserRow } from '../users/queries.js';
import { hasPassword } from '../users/service.js';
import { jwtPrincipalTags, keptUser, reachTags } from './guard.js';

const USER_ID = '0190f5a2-8d3c-7000-8000-000000000001';
const WORKSPACE_ID = '0190f5a2-8d3c-7000-8000-000000000002';

function row(passwordHash: string): UserRow {
  const now = new Date(0).toISOString();
  return {
    id: USER_ID,
    email: 'kept@example.com',
    name: 'Kept',
    password_hash: passwordHash,
    jwt_generation: 3,
    email_verified_at: now,
    instance_admin: 0,
    disabled_at: null,
    created_at: now,
    updated_at: now,
  };
}

test('a kept user holds no password hash, and still says whether there is a password', () => {
  const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA';
  const kept = keptUser(row(hash));
  assert.ok(!JSON.stringify(kept).includes(hash));
  assert.equal(hasPassword(kept), true);
  assert.deepEqual({ ...kept, password_hash: hash }, row(hash));
  assert.equal(hasPassword(keptUser(row(''))), false);
});

test("a principal depends on the user's second factor only where a workspace of theirs requires one", () => {
  const secondFactor = [changeTag('user_totp', 'user_id', USER_ID), changeTag('passkeys', 'user_id', USER_ID)];
  const plain = jwtPrincipalTags(USER_ID, reachTags(USER_ID, [WORKSPACE_ID], false));
  assert.deepEqual(plain, [userTag(USER_ID), membershipsTag(USER_ID), workspaceTag(WORKSPACE_ID)]);
  const gated = jwtPrincipalTags(USER_ID, reachTags(USER_ID, [WORKSPACE_ID], true));
  for (const tag of [...plain, ...secondFactor]) assert.ok(gated.includes(tag), tag);
});
