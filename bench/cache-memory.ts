/**
 * Fills the real cache with entries shaped as the app stores them and prints what filling it cost
 * in memory, per megabyte of CACHE_MB: whether the bound counts what entries really hold
 * (DESIGN.md, Performance: filling it grows RSS by at most 1.25 × CACHE_MB).
 *
 *   node --expose-gc --max-semi-space-size=2 --heap-growing-percent=25 dist/bench/cache-memory.js [--cache-mb 32] [--kind mix]
 *
 * With the heap flags `npm start` gives the app: without them V8 keeps the heap it grew while
 * filling (50 MB taken for 17 MB used with `--kind mix`), and the RSS printed is V8's, not the cache's.
 *
 * Kinds follow what the app keeps (grep the cache's namespaces): `site` (GET /api/v1/sites/{id},
 * about 1,230 bytes), `page` (a sites list page of three, about 3,690 bytes), `principal` (a JWT's
 * user and memberships), `token` (an access token's principal, under its hash), `public` (a site's public configuration under its key, with the answers
 * built from it), and `mix`, one
 * user's worth of each in turn, and `jwt` (a checked JWT under its text, src/auth/jwt.ts). The cache is filled with one and a half times what it may hold,
 * so that it evicts as a full cache does.
 */
import { createHash, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Principal } from '../src/auth/principal.js';
import { accessTokenBytes, jwtPrincipalTags, keptUser, principalBytes, reachTags } from '../src/auth/guard.js';
import { JwtService } from '../src/auth/jwt.js';
import { compactMemberships } from '../src/auth/one-membership.js';
import { ACCESS_TOKEN_SCOPES } from '../src/auth/scopes.js';
import type { UserRow } from '../src/users/queries.js';
import { bufferCost, Cache, ownBuffer } from '../src/cache/cache.js';
import { accessTokenTag, membershipsTag, NO_CHANGE_FEED, siteTag, workspaceSitesTag } from '../src/cache/change-feed.js';
import { PublicAnswers } from '../src/delivery/answers.js';
import { PublicDocument } from '../src/delivery/document.js';
import { chargeCopiesTo, compressedCopy, copyChargeCost } from '../src/http/compression.js';
import { responseHeaders } from '../src/http/security-headers.js';
import type { WorkspaceRole } from '../src/memberships/contract.js';
import { type SiteAnswer, siteAnswerCost } from '../src/sites/reads.js';

const KINDS = ['mix', 'site', 'page', 'principal', 'token', 'public', 'jwt'] as const;
type Kind = (typeof KINDS)[number];

const { values } = parseArgs({ options: { 'cache-mb': { type: 'string', default: '32' }, kind: { type: 'string', default: 'mix' } } });
const cacheMb = Number(values['cache-mb']);
const kind = KINDS.find((known) => known === values.kind);
if (kind === undefined || !(cacheMb > 0)) {
  console.error(`usage: node --expose-gc dist/bench/cache-memory.js [--cache-mb N] [--kind ${KINDS.join('|')}]`);
  process.exit(2);
}
const collect = globalThis.gc;
if (collect === undefined) {
  console.error('run with node --expose-gc');
  process.exit(2);
}

/**
 * An answer's bytes in a buffer of its own, as the app's encoders make them (src/sites/presenter.ts),
 * and JSON-like: an id in every hundred-odd bytes, so that its compressed copies are as large as a
 * real answer's. Sizes are declared as the app declares them.
 */
function ownBytes(length: number): Buffer {
  let text = '';
  while (text.length < length) text += `{"id":"${randomUUID()}","name":"Help centre","colour":"#3366ff","updated_at":"2026-11-28T10:00:00.000Z"},`;
  return ownBuffer(text.slice(0, length));
}

/** The compressed copies a browser's request makes of a kept body (it accepts both codings). */
function servedToBrowsers(body: Buffer): void {
  compressedCopy('br', body);
  compressedCopy('gzip', body);
}

const SETTINGS = JSON.stringify({ title: 'Help', position: 'bottom-right', greeting: 'Hello! How can we help you today?', links: ['https://example.com/a', 'https://example.com/b'] });

interface User {
  id: string;
  workspaceId: string;
  siteIds: string[];
}

/** An id as a database driver gives it, one flat string: randomUUID's is a rope of 20 small strings, ten times the memory. */
function newId(): string {
  return Buffer.from(randomUUID()).toString('latin1');
}

function newUser(): User {
  return { id: newId(), workspaceId: newId(), siteIds: [newId(), newId(), newId()] };
}

function storeSite(cache: Cache, user: User, siteId: string): void {
  const answer: SiteAnswer = { version: 3, body: ownBytes(1230), workspaceId: user.workspaceId };
  const sites = cache.namespace<SiteAnswer>('site');
  const key = `${user.id} ${siteId}`;
  sites.set(key, answer, { tags: [siteTag(siteId), membershipsTag(user.id)], size: siteAnswerCost(answer), epoch: cache.epoch });
  chargeCopiesTo(answer.body, (bytes) => sites.grow(key, answer, bytes));
  servedToBrowsers(answer.body);
}

function storePage(cache: Cache, user: User): void {
  const body = ownBytes(3690);
  const pages = cache.namespace<Buffer>('sites-page');
  const key = `${user.id} 50`;
  pages.set(key, body, { tags: [membershipsTag(user.id), workspaceSitesTag(user.workspaceId)], size: bufferCost(body) + copyChargeCost(body), epoch: cache.epoch });
  chargeCopiesTo(body, (bytes) => pages.grow(key, body, bytes));
  servedToBrowsers(body);
}

const NO_WORKSPACE_MISSING_A_SECOND_FACTOR: ReadonlySet<string> = new Set();

/** A JWT's user as the guard keeps it (src/auth/guard.ts): the row it reads, kept as keptUser keeps it, with its tags. */
function keptPrincipal(user: User): Principal {
  const now = new Date().toISOString();
  const memberships = compactMemberships(new Map<string, WorkspaceRole>([[user.workspaceId, 'owner']]));
  const row: UserRow = {
    id: user.id,
    email: `someone-${user.id.slice(0, 8)}@example.com`,
    name: `Someone ${user.id.slice(0, 8)}`,
    password_hash: `$argon2id$v=19$m=19456,t=2,p=1$${user.id.slice(0, 22)}$${user.id}${user.id.slice(0, 7)}`,
    jwt_generation: 0,
    email_verified_at: now,
    instance_admin: 0,
    disabled_at: null,
    created_at: now,
    updated_at: now,
  };
  const principal: Principal = {
    user: keptUser(row),
    method: 'jwt',
    scopes: ACCESS_TOKEN_SCOPES,
    accessToken: null,
    sessionId: null,
    authenticatedAt: Date.now(),
    memberships,
    workspaceId: null,
    twoFactorMissingIn: NO_WORKSPACE_MISSING_A_SECOND_FACTOR,
  };
  return principal;
}

function storePrincipal(cache: Cache, user: User): void {
  const principal = keptPrincipal(user);
  const tags = jwtPrincipalTags(user.id, reachTags(user.id, principal.memberships.keys(), false));
  cache.namespace<Principal>('jwt-user').set(user.id, principal, { tags, size: principalBytes(principal.memberships), epoch: cache.epoch });
}

/** An access token as the guard keeps it, under its SHA-256: its id, the principal with the token's id and name, when it was last used. */
function storeToken(cache: Cache, user: User): void {
  const tokenId = newId();
  const principal: Principal = { ...keptPrincipal(user), method: 'access_token', accessToken: { id: tokenId, name: `Integration ${tokenId.slice(0, 8)}` }, authenticatedAt: null };
  const tags = [accessTokenTag(tokenId), ...jwtPrincipalTags(user.id, reachTags(user.id, principal.memberships.keys(), false))];
  const hash = createHash('sha256').update(tokenId).digest('hex');
  cache.namespace('access-token').set(hash, { id: tokenId, principal, lastUsedMs: Date.now() }, { tags, size: accessTokenBytes(principal.memberships), epoch: cache.epoch });
}

const publicAnswers = new PublicAnswers(responseHeaders({ https: true }).publicPath, 60);

/** A document, and the answers a visitor's browser is sent from it: brotli first, then 304s. */
function storePublic(cache: Cache, user: User, siteId: string): void {
  const document = new PublicDocument({
    id: siteId,
    workspace_id: user.workspaceId,
    name: `Site ${siteId.slice(0, 8)}`,
    color: '#336699',
    widget: SETTINGS,
    portal: SETTINGS,
    branding: '{}',
    public_theme: '',
    version: 3,
    updated_at: new Date().toISOString(),
    public_key: `spk_${siteId.replaceAll('-', '').slice(0, 24)}`,
    previous_public_key: null,
    previous_public_key_expires_at: null,
  });
  cache.namespace<PublicDocument>('public').set(document.currentKey, document, { tags: [siteTag(siteId)], size: document.size, epoch: cache.epoch, expires: false });
  publicAnswers.config(document, undefined, 'gzip, deflate, br, zstd');
  publicAnswers.config(document, document.etagFor('br'), 'gzip, deflate, br, zstd');
}

const JWT_SECRET = 'a-secret-of-at-least-thirty-two-characters';
const JWT_ISSUER = 'https://siteward.example.com';
const clock = { now: () => new Date() };
const issuer = new JwtService(JWT_SECRET, JWT_ISSUER, clock);
let verifier: JwtService | undefined;

/** A user's JWT checked as the guard checks it: the token's text is the key, what it proved the value. */
function storeJwt(cache: Cache, user: User): void {
  verifier ??= new JwtService(JWT_SECRET, JWT_ISSUER, clock, cache);
  // A fresh copy of the text, as each request's header brings it: the issuer's own is dropped.
  verifier.verify(Buffer.from(issuer.issue(user.id, 0).token).toString('latin1'));
}

function storeUser(cache: Cache, user: User, what: Kind): void {
  if (what === 'site' || what === 'mix') for (const siteId of user.siteIds) storeSite(cache, user, siteId);
  if (what === 'page' || what === 'mix') storePage(cache, user);
  if (what === 'principal' || what === 'mix') storePrincipal(cache, user);
  if (what === 'token') storeToken(cache, user);
  if (what === 'jwt') storeJwt(cache, user);
  if (what === 'public' || what === 'mix') for (const siteId of user.siteIds) storePublic(cache, user, siteId);
}

interface Memory {
  rss: number;
  heap: number;
  /** What V8 has taken from the system for its heap, used or not. */
  heapTotal: number;
  external: number;
}

function settledMemory(gc: () => void): Memory {
  for (let round = 0; round < 4; round++) gc();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external };
}

const maxBytes = cacheMb * 1024 * 1024;
const cache = new Cache({ feed: { ...NO_CHANGE_FEED, ready: () => true }, maxBytes });
// The users are made before the first measure, and kept: only what the cache holds is measured.
const users: User[] = [];
let stored = 0;
const before = settledMemory(collect);
// Fills the cache to its bound, then as much again in half, so it evicts.
let filledAt = 0;
while (filledAt === 0 || stored < filledAt * 1.5) {
  const user = newUser();
  users.push(user);
  storeUser(cache, user, kind);
  stored++;
  if (filledAt === 0 && cache.bytes + 16 * 1024 > maxBytes) filledAt = stored;
}
users.length = 0;
const after = settledMemory(collect);

const megabyte = 1024 * 1024;
const heapAndExternal = after.heap + after.external - (before.heap + before.external);
const rss = after.rss - before.rss;
console.log(`kind ${kind}, CACHE_MB ${cacheMb}: ${cache.size} entries counted as ${(cache.bytes / megabyte).toFixed(1)} MB`);
console.log(`heap+external growth ${(heapAndExternal / megabyte).toFixed(1)} MB = ${(heapAndExternal / maxBytes).toFixed(2)} × CACHE_MB`);
console.log(`heap used ${((after.heap - before.heap) / megabyte).toFixed(1)} MB of ${((after.heapTotal - before.heapTotal) / megabyte).toFixed(1)} MB more taken, external ${((after.external - before.external) / megabyte).toFixed(1)} MB`);
console.log(`RSS growth ${(rss / megabyte).toFixed(1)} MB = ${(rss / maxBytes).toFixed(2)} × CACHE_MB`);
console.log(`per entry: ${Math.round(heapAndExternal / cache.size)} bytes held, ${Math.round(cache.bytes / cache.size)} counted`);
