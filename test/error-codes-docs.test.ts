import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ACCESS_TOKEN_ERRORS } from '../src/access-tokens/errors.js';
import { ACCOUNT_ERRORS } from '../src/account/errors.js';
import { AUTH_ERRORS } from '../src/auth/errors.js';
import { EMAIL_VERIFICATION_ERRORS } from '../src/email-verification/errors.js';
import type { ErrorCode } from '../src/error-codes.js';
import { HTTP_ERRORS } from '../src/http/errors.js';
import { PASSKEY_ERRORS } from '../src/passkeys/errors.js';
import { SITE_ERRORS } from '../src/sites/errors.js';
import { TOTP_ERRORS } from '../src/totp/errors.js';
import { USER_ERRORS } from '../src/users/errors.js';

const LISTS = [HTTP_ERRORS, AUTH_ERRORS, ACCESS_TOKEN_ERRORS, USER_ERRORS, ACCOUNT_ERRORS, TOTP_ERRORS, PASSKEY_ERRORS, EMAIL_VERIFICATION_ERRORS, SITE_ERRORS];
const codes: ErrorCode[] = LISTS.flatMap((list) => Object.values(list));

test('each error code belongs to one feature list only', () => {
  assert.equal(new Set(codes).size, codes.length);
});

test("docs/api.md's table of errors names every code the API can send, and no other", () => {
  const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = api.slice(api.indexOf('## Errors'), api.indexOf('## Operations'));
  const documented = new Set([...section.matchAll(/^\|(.*?)\|/gm)].flatMap((row) => [...(row[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1])));
  assert.deepEqual(codes.filter((code) => !documented.has(code)), [], 'codes missing from docs/api.md');
  assert.deepEqual([...documented].filter((code) => !(codes as string[]).includes(code ?? '')), [], 'codes docs/api.md lists that no feature defines');
});
