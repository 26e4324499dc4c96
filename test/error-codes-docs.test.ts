import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODE_LISTS, type ErrorCode } from '../src/error-codes.js';

const codes: ErrorCode[] = Object.values(ERROR_CODE_LISTS).flatMap((list): ErrorCode[] => Object.values(list));

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
