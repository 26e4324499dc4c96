import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import fc from 'fast-check';
import { AdminService } from '../src/admin/service.js';
import type { WorkspaceRole } from '../src/memberships/contract.js';
import { WorkspaceService } from '../src/workspaces/service.js';
import { buildTestApp, createAccessToken, createUserAsOperator, STRONG_PASSWORD, type SignedUpUser, type TestApp } from './helpers.js';
import { listenOnLoopback, TEST_ORIGIN } from './http.js';

/**
 * Walks every operation of the OpenAPI document with malformed and boundary values in its path,
 * query, headers and body (NUL, numbers past every integer type, invalid UTF-8 percent sequences,
 * deep and wrongly typed JSON, very long text), as each role of a workspace and as an access token,
 * with the ids of real rows everywhere else so that requests reach past the schema into services
 * and SQL. Not one answer may be a 5xx, and every 4xx of the API is a problem document: on SQLite
 * and on PostgreSQL alike (DESIGN.md, security rules). Seeded: a failure is the same on every run.
 */

const SEED = 20_261_128;
/** Requests per operation and credential: about a minute per database on a two-core machine. */
const RUNS_PER_CREDENTIAL = 4;
/** Requests in flight at once: the server, not the client, is what is measured. */
const IN_FLIGHT = 4;

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  minimum?: number;
  minItems?: number;
  minLength?: number;
  format?: string;
}

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: Schema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: Schema | undefined;
  formBody: boolean;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

/** How a request is made: each part either the real value or one of the malformed ones. */
interface RequestPlan {
  credential: number;
  path: Record<string, string | undefined>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; text: string | Uint8Array; type: string } | undefined;
}

// ---- malformed values ----

/** Percent-encodes the UTF-8 of any string, lone surrogates included (as U+FFFD, as a client's encoder would). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

const INTEGER_EDGES = ['0', '-1', '2147483647', '2147483648', '-2147483649', '4294967296', '9007199254740993', '9223372036854775808', '-9223372036854775809', '1e309', '1.5', '0x10', 'NaN', '99999999999999999999999999999999'];

/** Text for a URL, already encoded: NUL, invalid UTF-8, overlong sequences, encoded slashes, very long. */
const rawUrlText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    'a%00b',
    '%C0%AF',
    '%C0%80',
    '%FF',
    '%FE%FF',
    '%ED%A0%80',
    '%F4%90%80%80',
    '%E2%82',
    '%F0%9F%98%80',
    '%',
    '%zz',
    '%25',
    '%2F',
    '%2e%2e',
    '%20',
    '+',
    'null',
    '%27%20OR%201%3D1--',
    '',
    'A'.repeat(3000),
    '%00'.repeat(200),
    ...INTEGER_EDGES,
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map(percentEncode),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
);

/** A value the schema does not expect, for a field of a JSON body. */
const badJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '',
    ' ',
    'x'.repeat(70_000),
    2147483647,
    2147483648,
    -2147483649,
    4294967296,
    9007199254740993,
    1e308,
    -1e308,
    -1,
    0,
    1.5,
    null,
    {},
    [],
    [null],
    { '\u0000': 1 },
    '0190d6a0-0000-7000-8000-000000000000',
    'http://127.0.0.1:1/\u0000',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
);

/** JSON nested `depth` deep, as text: too deep for JSON.stringify to write, not for a server to be sent. */
function nested(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

// ---- sample values from the document's schemas ----

function resolve(document: OpenApiDocument, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; current.$ref !== undefined && hops < 10; hops++) {
    const name = current.$ref.split('/').pop() ?? '';
    current = document.components?.schemas?.[name] ?? {};
  }
  return current;
}

/**
 * A value that passes the schema, as far as a schema says: the starting point a fuzzed field is
 * changed from, so that the rest of the body gets past validation. URLs point at `sink`, a
 * loopback port that closes every connection, so nothing leaves the machine or waits; booleans stay false, so no workspace
 * starts to require two-factor authentication or review halfway through.
 */
function sample(document: OpenApiDocument, sink: string, raw: Schema, name = '', depth = 0): unknown {
  const schema = resolve(document, raw);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice !== undefined && choice.length > 0) return sample(document, sink, choice.find((item) => resolve(document, item).type !== 'null') ?? choice[0] ?? {}, name, depth);
  if (schema.allOf !== undefined) return Object.assign({}, ...schema.allOf.map((item) => sample(document, sink, item, name, depth)));
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  if (type === 'object' || schema.properties !== undefined) {
    if (depth > 4) return {};
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sample(document, sink, value, key, depth + 1)]));
  }
  if (type === 'array') return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => sample(document, sink, schema.items ?? {}, name, depth + 1)).slice(0, 1);
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return false;
  if (type === 'string') {
    if (schema.format === 'email' || name.includes('email')) return 'fuzz@example.com';
    if (name.includes('url') || name === 'endpoint') return sink;
    if (name.includes('color')) return '#336699';
    return 'Fuzz value'.padEnd(schema.minLength ?? 0, 'x');
  }
  return 'Fuzz value';
}

/** Every place in a value where another value can be put: the paths of its members. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, item]) => pathsOf(item, [...prefix, key]))];
}

function replaced(value: unknown, path: string[], replacement: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value)) return value.map((item, index) => (String(index) === head ? replaced(item, rest, replacement) : item));
  if (typeof value === 'object' && value !== null) return { ...value, [head]: replaced((value as Record<string, unknown>)[head], rest, replacement) };
  return value;
}

// ---- the operations ----

function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const content = operation.requestBody?.content ?? {};
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: content['application/json']?.schema ?? content['application/x-www-form-urlencoded']?.schema,
        formBody: content['application/json'] === undefined && content['application/x-www-form-urlencoded'] !== undefined,
      });
    }
  }
  return operations;
}

/**
 * Operations that end what later ones need (a site, a member, the credentials themselves) run
 * last, in this order, so that everything before them is reached with rows and sessions alive.
 */
const LAST = [
  'POST /api/v1/admin/users/{id}/disable',
  'DELETE /api/v1/admin/users/{id}/sessions',
  'DELETE /api/v1/workspaces/{id}/webhooks/{webhook_id}',
  'DELETE /api/v1/workspaces/{id}/invitations/{invitation_id}',
  'DELETE /api/v1/sites/{id}',
  'POST /api/v1/trash/{site_id}/restore',
  'DELETE /api/v1/workspaces/{id}/members/{user_id}',
  'DELETE /api/v1/access-tokens/{id}',
  'DELETE /api/v1/me/sessions/{id}',
  'DELETE /api/v1/workspaces/{id}',
  'POST /auth/logout',
  'DELETE /api/v1/me/sessions',
  'DELETE /api/v1/me',
];

function inOrder(operations: Operation[]): Operation[] {
  const rank = (operation: Operation) => LAST.indexOf(`${operation.method} ${operation.path}`);
  return [...operations.filter((operation) => rank(operation) < 0), ...operations.filter((operation) => rank(operation) >= 0).sort((a, b) => rank(a) - rank(b))];
}

// ---- the rows the requests name ----

interface Fixture {
  credentials: Array<{ name: string; headers: Record<string, string> }>;
  /** The real value of a path parameter, by operation path and name. */
  pathValue(path: string, name: string): string;
}

async function post(base: string, url: string, authorization: string, json: unknown): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', origin: TEST_ORIGIN, ...(authorization === '' ? {} : { authorization }) };
  const response = await fetch(`${base}${url}`, { method: 'POST', headers, body: JSON.stringify(json) });
  const text = await response.text();
  assert.ok(response.status < 300, `${url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function get(base: string, url: string, authorization: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${url}`, { headers: { authorization } });
  const text = await response.text();
  assert.equal(response.status, 200, `${url}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function field(value: unknown, ...path: Array<string | number>): string {
  let current = value;
  for (const key of path) current = (current as Record<string | number, unknown> | undefined)?.[key];
  assert.equal(typeof current, 'string', `no ${path.join('.')} in ${JSON.stringify(value)}`);
  return current as string;
}

let people = 0;

/** An account with a confirmed address (as the operator makes them), signed in by password. */
async function person(t: TestApp, base: string): Promise<SignedUpUser> {
  const { id, email } = await createUserAsOperator(t, `fuzz${++people}@example.com`);
  const jwt = field(await post(base, '/auth/login', '', { email, password: STRONG_PASSWORD }), 'token');
  return { id, email, jwt, bearer: `Bearer ${jwt}` };
}

async function makeFixture(t: TestApp, base: string, sink: string): Promise<Fixture> {
  const owner = await person(t, base);
  await new AdminService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache }).promote(owner.email);
  const workspaceId = field(await post(base, '/api/v1/workspaces', owner.bearer, { name: 'Fuzzed' }), 'workspace', 'id');
  const workspaces = new WorkspaceService({ db: t.database.db, dialect: t.database.dialect, clock: t.clock, cache: t.cache });
  const members: Record<string, { bearer: string; id: string }> = {};
  for (const role of ['admin', 'editor', 'viewer'] satisfies WorkspaceRole[]) {
    const member = await person(t, base);
    await workspaces.addMember(workspaceId, member.id, role);
    members[role] = member;
  }
  // Someone the instance administrator's routes may disable without ending a credential in use.
  const bystander = await person(t, base);
  const token = await createAccessToken(t.app, owner);
  const site = (await post(base, '/api/v1/sites', owner.bearer, { name: 'Fuzzed site', workspace_id: workspaceId })).site;
  const siteId = field(site, 'id');
  const changeRequestId = field(await post(base, `/api/v1/sites/${siteId}/change-requests`, owner.bearer, { title: 'Fuzzed', changes: { name: 'Proposed' } }), 'change_request', 'id');
  const webhookId = field(await post(base, `/api/v1/workspaces/${workspaceId}/webhooks`, owner.bearer, { url: sink, events: ['site.updated'] }), 'webhook', 'id');
  await post(base, `/api/v1/workspaces/${workspaceId}/webhooks/${webhookId}/test`, owner.bearer, {});
  const deliveryId = field(await get(base, `/api/v1/workspaces/${workspaceId}/webhooks/${webhookId}/deliveries`, owner.bearer), 'deliveries', 0, 'id');
  const invitationId = field(await post(base, `/api/v1/workspaces/${workspaceId}/invitations`, owner.bearer, { email: 'invited@example.com', role: 'viewer' }), 'invitation', 'id');
  await fetch(`${base}/auth/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: TEST_ORIGIN }, body: JSON.stringify({ email: owner.email, password: STRONG_PASSWORD }) });
  const sessionId = field(await get(base, '/api/v1/me/sessions', owner.bearer), 'sessions', 0, 'id');
  const values: Record<string, string> = {
    site_id: siteId,
    cr_id: changeRequestId,
    webhook_id: webhookId,
    delivery_id: deliveryId,
    invitation_id: invitationId,
    user_id: members.editor?.id ?? '',
    version: '1',
    public_key: field(site, 'public_key'),
    group: 'widget',
    provider: 'fuzz',
  };
  return {
    credentials: [
      { name: 'owner', headers: { authorization: owner.bearer } },
      { name: 'admin', headers: { authorization: members.admin?.bearer ?? '' } },
      { name: 'editor', headers: { authorization: members.editor?.bearer ?? '' } },
      { name: 'viewer', headers: { authorization: members.viewer?.bearer ?? '' } },
      { name: 'access token', headers: { authorization: token.header } },
      { name: 'nobody', headers: {} },
    ],
    pathValue(path, name) {
      if (name !== 'id') return values[name] ?? 'fuzz';
      if (path.startsWith('/api/v1/sites/')) return siteId;
      if (path.startsWith('/api/v1/workspaces/')) return workspaceId;
      if (path.startsWith('/api/v1/admin/users/')) return bystander.id;
      if (path.startsWith('/api/v1/access-tokens/')) return token.id;
      if (path.startsWith('/api/v1/me/sessions/')) return sessionId;
      return '0190d6a0-0000-7000-8000-000000000000';
    },
  };
}

// ---- the plans ----

function planFor(document: OpenApiDocument, sink: string, operation: Operation, credentials: number): fc.Arbitrary<RequestPlan> {
  const path = fc.record(
    Object.fromEntries(operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => [parameter.name, fc.option(rawUrlText, { freq: 2, nil: undefined })])),
  ) as fc.Arbitrary<Record<string, string | undefined>>;
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const query = fc.array(
    fc.tuple(fc.constantFrom(...queryParameters.map((parameter) => parameter.name), 'unknown', 'limit', 'cursor'), rawUrlText),
    { maxLength: 3 },
  );
  const headerParameters = operation.parameters.filter((parameter) => parameter.in === 'header');
  const headerValue = fc.constantFrom('"1"', 'W/"1"', '*', '"2147483648"', '"-1"', '"99999999999999999999"', '"1", "2147483648"', '', 'x'.repeat(2000), '\u00ff');
  const headers = fc.record(Object.fromEntries(headerParameters.map((parameter) => [parameter.name, headerValue])), { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;
  let body: fc.Arbitrary<RequestPlan['body']> = fc.constant(undefined);
  if (operation.body !== undefined) {
    const valid = sample(document, sink, operation.body);
    const places = pathsOf(valid);
    body = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...places), badJson).map(([place, value]) => ({ kind: 'json' as const, value: replaced(valid, place, value) })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'json' as const, value: valid }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => ({ kind: 'json' as const, value })) },
      { weight: 1, arbitrary: fc.constantFrom(20, 100, 10_000).map((depth) => ({ kind: 'raw' as const, text: nested(depth), type: 'application/json' })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<{ text: string | Uint8Array; type: string }>(
          { text: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf, 0xff]), Buffer.from('"}')]), type: 'application/json' },
          { text: '{"name":"a\\u0000b"}', type: 'application/json' },
          { text: '{"a":', type: 'application/json' },
          { text: '', type: 'application/json' },
          { text: 'name=%00&email=%FF', type: 'application/x-www-form-urlencoded' },
          { text: 'x', type: 'text/plain' },
          { text: `{${'"a":1,'.repeat(10_000)}"b":2}`, type: 'application/json' },
        ).map((raw) => ({ kind: 'raw' as const, ...raw })),
      },
    );
  }
  return fc.record({ credential: fc.nat({ max: credentials - 1 }), path, query, headers, body });
}

function urlOf(operation: Operation, plan: RequestPlan, fixture: Fixture): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => plan.path[name] ?? encodeURIComponent(fixture.pathValue(operation.path, name)));
  return plan.query.length === 0 ? path : `${path}?${plan.query.map(([name, value]) => `${name}=${value}`).join('&')}`;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** One request over real HTTP; an event stream's body is not waited for (it stays open by design). */
async function send(base: string, method: string, url: string, headers: Record<string, string>, body: RequestPlan['body']): Promise<Answer> {
  const all: Record<string, string> = { origin: TEST_ORIGIN, ...headers };
  let payload: string | Uint8Array | undefined;
  if (body?.kind === 'json') {
    all['content-type'] = 'application/json';
    payload = JSON.stringify(body.value);
  } else if (body?.kind === 'raw') {
    all['content-type'] = body.type;
    payload = body.text;
  }
  const response = await fetch(`${base}${url}`, { method, headers: all, redirect: 'manual', ...(payload === undefined ? {} : { body: payload }) });
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, contentType, text: '' };
  }
  return { status: response.status, contentType, text: await response.text() };
}

/** Runs the tasks with at most `limit` at once. */
async function inPool<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await run(item);
      }
    }),
  );
}

test('no operation of the API answers malformed or boundary input with a 5xx, and every refusal is a problem document', async () => {
  // Webhooks and partner checks are sent to a loopback port that closes every connection at once:
  // outbound requests are made (to reach that code) and end at once, and nothing leaves the machine.
  const closer = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve));
  const sink = `http://127.0.0.1:${(closer.address() as AddressInfo).port}/fuzz`;
  const t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  try {
    const http = await listenOnLoopback(t);
    const document = (await (await fetch(`${http.base}/api/v1/openapi.json`)).json()) as OpenApiDocument;
    const fixture = await makeFixture(t, http.base, sink);
    const operations = inOrder(operationsOf(document));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const answered = new Set<string>();
    let requests = 0;
    for (const [index, operation] of operations.entries()) {
      const name = `${operation.method} ${operation.path}`;
      const plans = fc.sample(planFor(document, sink, operation, fixture.credentials.length), { seed: SEED + index, numRuns: RUNS_PER_CREDENTIAL * fixture.credentials.length });
      await inPool(plans, IN_FLIGHT, async (plan) => {
        const url = urlOf(operation, plan, fixture);
        const credential = fixture.credentials[plan.credential] ?? { name: 'nobody', headers: {} };
        let answer: Answer;
        try {
          answer = await send(http.base, operation.method, url, { ...credential.headers, ...plan.headers }, plan.body);
        } catch (error) {
          failures.push(`${name} as ${credential.name}: ${operation.method} ${url.slice(0, 200)}: no answer (${String(error)})`);
          return;
        }
        requests++;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status < 300) answered.add(name);
        const where = `${name} as ${credential.name}: ${operation.method} ${url.slice(0, 200)} ${plan.body === undefined ? '' : JSON.stringify(plan.body.kind === 'json' ? plan.body.value : String(plan.body.text)).slice(0, 200)}`;
        if (answer.status >= 500) failures.push(`${where} -> ${answer.status} ${answer.text.slice(0, 200)}`);
        // The server-rendered pages answer a person with a page; everything else with a problem.
        const page = !operation.path.startsWith('/api/') && !operation.path.startsWith('/public/') && answer.contentType.startsWith('text/html');
        if (answer.status >= 400 && answer.status < 500 && !page && !answer.contentType.startsWith('application/problem+json')) {
          failures.push(`${where} -> ${answer.status} as ${answer.contentType}, not a problem document`);
        }
      });
    }
    const counts = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ');
    console.log(`fuzzed ${operations.length} operations with ${requests} requests on ${t.database.dialect}; ${answered.size} operations answered 2xx at least once; statuses ${counts}`);
    assert.equal(operations.length > 100, true, 'the OpenAPI document lists every operation');
    assert.deepEqual(failures, []);
  } finally {
    await t.close();
    await new Promise((resolve) => closer.close(resolve));
  }
});
