import type { Request } from 'autocannon';
import type { SeedData } from './seed.js';

/**
 * In the table's order, which is the running order but for the event streams, measured first on
 * an app process of their own (bench/run.ts): login after the rest, because argon2's
 * buffers raise the RSS of everything after it; the mixed load last, since its RSS at the end is
 * the figure DESIGN.md sets a bound on.
 */
export const SCENARIO_IDS = ['list-jwt', 'list-pat', 'get-site', 'public-config', 'public-304', 'public-streams', 'put-site', 'healthz', 'magic-page', 'login', 'mixed'] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

export const MAX_RSS_MB = 200;

/** The targets of DESIGN.md "Performance"; null where none is set (the scenario informs). */
export interface Target {
  /** The least CPU ratio: the ceiling's CPU time per request over the app's, at the paced rate. */
  minCpuRatio: number | null;
  /** Whether the CPU ratio is judged on PostgreSQL too (the PUT's is set for SQLite). */
  cpuOnPostgres: boolean;
  /** The most p99 at the paced rate, as a multiple of the ceiling's p99 at that rate. */
  maxP99Multiple: number | null;
  /** On PostgreSQL the app processes must answer the whole paced rate. */
  holdRateOnPostgres: boolean;
  /** The event streams: the slowest delivery of a change, ms. */
  maxDeliveryMs: number | null;
  /** RSS after the scenario (for the streams: the growth with them open), MB. */
  maxRssMb: number | null;
}

const NO_TARGET: Target = { minCpuRatio: null, cpuOnPostgres: false, maxP99Multiple: null, holdRateOnPostgres: false, maxDeliveryMs: null, maxRssMb: null };

/** DESIGN's offered rates for the latency figures (requests a second, evenly paced). */
export const GET_RATE = 2000;
export const PUBLIC_RATE = 5000;
export const PUT_RATE = 500;
/** The sign-in page renders HTML: no target, a rate it holds on a shared machine. */
const PAGE_RATE = 500;
/** Sign-ins each cost an argon2id hash: a rate the machine holds, for the CPU per sign-in (no target). */
const LOGIN_RATE = 5;

/**
 * What a scenario's figures are taken against, run just before it in each pair: the bare node:http
 * server sending the same JSON (GETs), the bare server doing the PUT's one UPDATE … RETURNING
 * (PUT), the bare server sending the public path's very answers, 200 or 304 (public), or nothing
 * (the mixed load, run once for its memory; the event streams, measured their own way).
 */
export type Ceiling = 'get' | 'put' | 'public' | null;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Judges one answer before the load: 'ok', 'unavailable' (the route does not exist yet), or why
 * the scenario would measure the wrong thing.
 */
export type Check = (status: number, body: string) => 'ok' | 'unavailable' | string;

/** A request sent once before the load; the statuses the probes get are the ones the load may get. */
export interface Probe {
  request: HttpRequest;
  check: Check;
}

/** The event-stream scenario: many streams held open on one app, and one change made (through another, when there are two). */
export interface StreamsPlan {
  /** Streams to hold open at once. */
  count: number;
  siteId: string;
  publicKey: string;
  /** The JWT of the site's owner, who makes the change. */
  ownerJwt: string;
}

export interface Scenario {
  id: ScenarioId;
  /** The request in words, for the JSON output. */
  label: string;
  target: Target;
  ceiling: Ceiling;
  /** Requests a second of the paced runs (scenario and ceiling alike); 0 for the scenarios without a ceiling. */
  rate: number;
  /** Cycled through by the connections, each taking every n-th, so load rotates over users and rows. */
  requests: HttpRequest[];
  /** One per kind of request in the scenario; empty when there was nothing to build them from. */
  probes: Probe[];
  /** Set for the event streams, which are measured apart from autocannon's load. */
  streams?: StreamsPlan;
  /**
   * Set where the target is for a warm cache: names the rows the requests read, so that the
   * benchmark asks for them once before a run whose cache may have let them go (run.ts).
   * Scenarios naming the same rows share them.
   */
  warm?: 'list-jwt' | 'list-pat' | 'get-site' | 'public';
}

export interface ScenarioInputs {
  seed: SeedData;
  /** A valid JWT per seeded user, in the same order. */
  jwts: string[];
  /** How many distinct requests a scenario cycles through: enough that no row or credential is hot. */
  rotation: number;
  /** The load's connections: the mixed load gives each of them every kind of request. */
  connections: number;
  /** Event streams to hold open in the streams scenario. */
  streams: number;
}

const json = { 'content-type': 'application/json' };

function listCheck(expectedSites: number) {
  return (status: number, body: string) => {
    if (status !== 200) return `expected 200, got ${status}: ${body.slice(0, 200)}`;
    let sites: unknown;
    try {
      sites = (JSON.parse(body) as { sites?: unknown }).sites;
    } catch {
      return `expected JSON, got: ${body.slice(0, 200)}`;
    }
    return Array.isArray(sites) && sites.length === expectedSites ? 'ok' : `expected ${expectedSites} sites in the page`;
  };
}

function statusCheck(expected: number) {
  return (status: number, body: string) => (status === expected ? 'ok' : `expected ${expected}, got ${status}: ${body.slice(0, 200)}`);
}

/**
 * A realistic partial update of about 1 KB: the settings a person edits in one form, with values
 * that differ from request to request.
 */
export function siteUpdateBody(index: number): string {
  return JSON.stringify({
    name: `Help centre ${index} (edited)`,
    color: index % 2 === 0 ? '#0F766E' : '#4f46e5',
    ai_settings: JSON.stringify({
      model: 'gpt-4o-mini',
      temperature: (index % 10) / 10,
      max_tokens: 600 + (index % 5) * 100,
      system_prompt:
        'Answer questions about the product from the knowledge sources only. Be brief and friendly, link the article you used, and offer to open a ticket when the answer is not in the sources.',
    }),
    widget: JSON.stringify({ position: 'bottom-right', greeting: `Hi! How can we help? (${index})`, launcher_color: '#0f766e', open_on_load: false }),
    knowledge_sources: JSON.stringify([
      { type: 'sitemap', url: 'https://www.example.com/sitemap.xml' },
      { type: 'url', url: `https://docs.example.com/articles/${index}` },
    ]),
    partner_settings: {
      enabled: true,
      base_url: 'https://partner.example.com/api',
      project_id: `project-${index % 97}`,
      read_enabled: true,
      write_enabled: false,
      collections: ['faq', 'billing', 'onboarding'],
    },
  });
}

/**
 * Up to `rotation` distinct sites of the users `first` to `end` (exclusive), spread over users
 * first: each pass takes one site of every user, a different one each pass, so consecutive
 * requests never share a user or a row.
 */
function siteTargets(seed: SeedData, first: number, end: number, rotation: number): Array<{ user: number; siteId: string }> {
  const targets: Array<{ user: number; siteId: string }> = [];
  const count = end - first;
  const total = seed.users.slice(first, end).reduce((sum, user) => sum + user.siteIds.length, 0);
  for (let entry = 0; entry < total && targets.length < rotation; entry++) {
    const user = first + (entry % count);
    const pass = Math.floor(entry / count);
    const siteIds = seed.users[user]?.siteIds ?? [];
    const siteId = siteIds[(user + pass) % Math.max(1, siteIds.length)];
    if (siteId !== undefined && pass < siteIds.length) targets.push({ user, siteId });
  }
  return targets;
}

/** A scenario of one kind of request, probed with its first. */
function probedByFirst(requests: HttpRequest[], check: Check): Pick<Scenario, 'requests' | 'probes'> {
  const first = requests[0];
  return { requests, probes: first === undefined ? [] : [{ request: first, check }] };
}

/** One kind of request in the mixed load: `weight` of every MIXED_PATTERN_SIZE requests. */
interface MixedKind {
  weight: number;
  request(index: number): HttpRequest;
  check: Check;
}

const MIXED_PATTERN_SIZE = 100;

/**
 * Every kind spread evenly over a pattern of MIXED_PATTERN_SIZE slots (a kind of weight w takes
 * the slots nearest to (j + ½)·size/w), so no kind comes in bursts.
 */
function mixedPattern(kinds: readonly MixedKind[]): MixedKind[] {
  const slots = kinds.flatMap((kind) => Array.from({ length: kind.weight }, (_, j) => ({ kind, at: (j + 0.5) / kind.weight })));
  if (slots.length !== MIXED_PATTERN_SIZE) throw new Error(`the mixed load's weights add up to ${slots.length}, not ${MIXED_PATTERN_SIZE}`);
  return slots.sort((a, b) => a.at - b.at).map((slot) => slot.kind);
}

/**
 * The mixed load's requests. Connection c takes requests c, c + n, c + 2n … (requestsForConnection),
 * so request r is given the pattern's slot (r div n) plus an offset per connection: every
 * connection walks the whole pattern, each from its own place, and the kinds do not move in step.
 */
function mixedRequests(kinds: readonly MixedKind[], connections: number, count: number): HttpRequest[] {
  const pattern = mixedPattern(kinds);
  const requests: HttpRequest[] = [];
  for (let index = 0; index < count; index++) {
    const connection = index % connections;
    const offset = Math.floor((connection * MIXED_PATTERN_SIZE) / connections);
    const kind = pattern[(Math.floor(index / connections) + offset) % MIXED_PATTERN_SIZE];
    if (kind !== undefined) requests.push(kind.request(index));
  }
  return requests;
}

/** DESIGN's targets for the public path. */
export const PUBLIC_TARGET: Target = { ...NO_TARGET, minCpuRatio: 0.8, cpuOnPostgres: true, maxP99Multiple: 1.5 };
/** For the streams: every one told of a change within 2 s, for less than 150 MB more RSS. */
export const PUBLIC_STREAMS_TARGET: Target = { ...NO_TARGET, maxDeliveryMs: 2000, maxRssMb: 150 };

function publicConfigCheck(expectedStatus: 200 | 304): Check {
  return (status: number, body: string) => {
    if (status === 404 && body.includes('route_not_found')) return 'unavailable';
    if (status !== expectedStatus) return `expected ${expectedStatus}, got ${status}: ${body.slice(0, 200)}`;
    if (expectedStatus === 304) return body === '' ? 'ok' : 'a 304 with a body';
    try {
      const config = JSON.parse(body) as { site?: { widget?: unknown }; version?: unknown };
      return typeof config.site === 'object' && config.version === 1 && 'widget' in config.site ? 'ok' : `not a public configuration: ${body.slice(0, 200)}`;
    } catch {
      return `expected JSON, got: ${body.slice(0, 200)}`;
    }
  };
}

/**
 * The list scenarios' callers: few enough that each one's page and principal fit the default cache
 * together (docs/performance.md, "Memory", has what each costs). A rotation through more than the
 * cache holds makes a least-recently-used cache miss most of the time, and the warm cost the
 * targets are for would not be measured.
 */
const LIST_READERS = 4_000;

export function buildScenarios({ seed, jwts, rotation, connections, streams }: ScenarioInputs): Scenario[] {
  const bearer = (user: number) => ({ authorization: `Bearer ${jwts[user] ?? ''}` });
  // Reads use the first half of the users, writes the second: a PUT never changes a page the
  // read scenarios fetch, so every list answer keeps the size of the baseline's body.
  const half = Math.max(1, Math.ceil(seed.users.length / 2));
  const readers = seed.users.slice(0, Math.min(half, rotation, LIST_READERS)).map((user, index) => ({ user, index }));
  const firstPage = Math.min(50, seed.users[0]?.siteIds.length ?? 0);
  const readSites = siteTargets(seed, 0, half, rotation);
  const writeSites = seed.users.length > 1 ? siteTargets(seed, half, seed.users.length, rotation) : readSites;
  const authenticatedGet: Target = { ...NO_TARGET, minCpuRatio: 0.5, cpuOnPostgres: true, maxP99Multiple: 2 };

  const listWithJwt = (index: number): HttpRequest => ({ method: 'GET', path: '/api/v1/sites', headers: bearer(index) });
  const patReaders = readers.flatMap(({ user }) => (user.accessToken === null ? [] : [user.accessToken]));
  const listWithPat = (token: string): HttpRequest => ({ method: 'GET', path: '/api/v1/sites', headers: { authorization: `Token ${token}` } });
  const readSite = ({ user, siteId }: { user: number; siteId: string }): HttpRequest => ({ method: 'GET', path: `/api/v1/sites/${siteId}`, headers: bearer(user) });
  const putSite = ({ user, siteId }: { user: number; siteId: string }, body: string): HttpRequest => ({
    method: 'PUT',
    path: `/api/v1/sites/${siteId}`,
    headers: { ...bearer(user), ...json },
    body,
  });
  const login = (email: string, password: string): HttpRequest => ({ method: 'POST', path: '/auth/login', headers: json, body: JSON.stringify({ email, password }) });
  const at = <T>(list: readonly T[], index: number): T | undefined => list[index % Math.max(1, list.length)];

  // Reads, writes, logins and bad input, in the proportions an API under use might see.
  const mixedKinds: MixedKind[] = [
    { weight: 20, request: (i) => listWithJwt(at(readers, i)?.index ?? 0), check: listCheck(firstPage) },
    { weight: 15, request: (i) => listWithPat(at(patReaders, i) ?? ''), check: listCheck(firstPage) },
    { weight: 20, request: (i) => readSite(at(readSites, i) ?? { user: 0, siteId: '' }), check: statusCheck(200) },
    { weight: 20, request: (i) => putSite(at(writeSites, i) ?? { user: 0, siteId: '' }, siteUpdateBody(i)), check: statusCheck(200) },
    { weight: 1, request: (i) => login(at(readers, i)?.user.email ?? '', seed.password), check: statusCheck(200) },
    // Bad input: a body that is not an object, a field of the wrong type, a site that does not
    // exist, a forged token and a sign-in without a password. None of them may cost a
    // guessing-limit place. A body that is not JSON at all is left out: the app closes the
    // connection after one, and autocannon then times every later answer on that connection
    // from an earlier request's send.
    { weight: 5, request: (i) => putSite(at(writeSites, i) ?? { user: 0, siteId: '' }, '[]'), check: statusCheck(400) },
    { weight: 5, request: (i) => putSite(at(writeSites, i) ?? { user: 0, siteId: '' }, JSON.stringify({ color: 42 })), check: statusCheck(400) },
    { weight: 5, request: (i) => readSite({ user: at(readers, i)?.index ?? 0, siteId: '00000000-0000-7000-8000-000000000000' }), check: statusCheck(404) },
    { weight: 5, request: () => ({ method: 'GET', path: '/api/v1/sites', headers: { authorization: 'Bearer not.a.jwt' } }), check: statusCheck(401) },
    { weight: 4, request: (i) => ({ method: 'POST', path: '/auth/login', headers: json, body: JSON.stringify({ email: at(readers, i)?.user.email ?? '' }) }), check: statusCheck(400) },
  ];

  // The public path: the first half's sites' keys, which no PUT touches, so every one stays at version 1.
  const publicKeys = readSites.flatMap(({ user, siteId }) => {
    const owner = seed.users[user];
    const key = owner?.publicKeys[owner.siteIds.indexOf(siteId)];
    return key === undefined ? [] : [key];
  });
  const publicGet = (key: string): HttpRequest => ({ method: 'GET', path: `/public/v1/sites/${key}`, headers: {} });
  const publicRevalidation = (key: string): HttpRequest => ({ method: 'GET', path: `/public/v1/sites/${key}`, headers: { 'if-none-match': '"1"' } });
  // The streams follow a site of the last user that no other scenario reads or writes: the PUTs
  // take the second half's sites (user + pass) % 3 for passes 0 and 1 (siteTargets).
  const streamer = seed.users.length - 1;
  const streamerSites = seed.users[streamer];
  const streamedIndex = streamerSites === undefined ? 0 : (streamer + 2) % Math.max(1, streamerSites.siteIds.length);
  const streamedSite = streamerSites === undefined ? undefined : { siteId: streamerSites.siteIds[streamedIndex], publicKey: streamerSites.publicKeys[streamedIndex] };

  const scenarios: Scenario[] = [
    {
      id: 'list-jwt',
      warm: 'list-jwt',
      label: 'GET /api/v1/sites, Bearer JWT',
      target: authenticatedGet,
      ceiling: 'get',
      rate: GET_RATE,
      ...probedByFirst(readers.map(({ index }) => listWithJwt(index)), listCheck(firstPage)),
    },
    {
      id: 'list-pat',
      warm: 'list-pat',
      label: 'GET /api/v1/sites, Token PAT',
      target: authenticatedGet,
      ceiling: 'get',
      rate: GET_RATE,
      ...probedByFirst(patReaders.map(listWithPat), listCheck(firstPage)),
    },
    {
      id: 'get-site',
      warm: 'get-site',
      label: 'GET /api/v1/sites/{id}, Bearer JWT',
      target: authenticatedGet,
      ceiling: 'get',
      rate: GET_RATE,
      ...probedByFirst(readSites.map(readSite), statusCheck(200)),
    },
    {
      id: 'public-config',
      warm: 'public',
      label: 'GET /public/v1/sites/{public_key}, no credentials',
      target: PUBLIC_TARGET,
      ceiling: 'public',
      rate: PUBLIC_RATE,
      ...probedByFirst(publicKeys.map(publicGet), publicConfigCheck(200)),
    },
    {
      id: 'public-304',
      warm: 'public',
      label: 'the same with If-None-Match of the version held: 304',
      target: PUBLIC_TARGET,
      ceiling: 'public',
      rate: PUBLIC_RATE,
      ...probedByFirst(publicKeys.map(publicRevalidation), publicConfigCheck(304)),
    },
    {
      id: 'public-streams',
      label: `${streams} open event streams on one app, and a change told to them`,
      target: PUBLIC_STREAMS_TARGET,
      ceiling: null,
      rate: 0,
      ...probedByFirst(streamedSite?.publicKey === undefined ? [] : [publicGet(streamedSite.publicKey)], publicConfigCheck(200)),
      ...(streamedSite?.siteId === undefined || streamedSite.publicKey === undefined
        ? {}
        : { streams: { count: streams, siteId: streamedSite.siteId, publicKey: streamedSite.publicKey, ownerJwt: jwts[streamer] ?? '' } }),
    },
    {
      id: 'put-site',
      label: 'PUT /api/v1/sites/{id}, 1 KB partial, JWT',
      target: { ...NO_TARGET, minCpuRatio: 0.4, maxP99Multiple: 2, holdRateOnPostgres: true },
      ceiling: 'put',
      rate: PUT_RATE,
      ...probedByFirst(writeSites.map((target, index) => putSite(target, siteUpdateBody(index))), statusCheck(200)),
    },
    {
      id: 'healthz',
      label: 'GET /healthz (framework floor, no target)',
      target: NO_TARGET,
      ceiling: 'get',
      rate: GET_RATE,
      ...probedByFirst([{ method: 'GET', path: '/healthz', headers: {} }], statusCheck(200)),
    },
    {
      id: 'magic-page',
      label: 'GET /magic?token=x page',
      target: NO_TARGET,
      ceiling: 'get',
      rate: PAGE_RATE,
      // An unknown token may well be answered 400 or 410 with a page; only a missing route or a crash is not measurable.
      ...probedByFirst([{ method: 'GET', path: '/magic?token=x', headers: { accept: 'text/html' } }], (status, body) =>
        status === 404 ? 'unavailable' : status < 500 ? 'ok' : `got ${status}: ${body.slice(0, 200)}`,
      ),
    },
    {
      id: 'login',
      label: 'POST /auth/login (argon2id)',
      target: NO_TARGET,
      ceiling: 'get',
      rate: LOGIN_RATE,
      ...probedByFirst(readers.map(({ user }) => login(user.email, seed.password)), statusCheck(200)),
    },
    {
      id: 'mixed',
      label: 'mixed: reads, writes, logins, bad input',
      target: { ...NO_TARGET, maxRssMb: MAX_RSS_MB },
      ceiling: null,
      rate: 0,
      // Every connection walks the whole pattern at least once.
      requests: mixedRequests(mixedKinds, connections, Math.max(rotation, connections * MIXED_PATTERN_SIZE)),
      probes: mixedKinds.map((kind) => ({ request: kind.request(0), check: kind.check })),
    },
  ];
  return scenarios;
}

/** The requests connection `index` of `connections` cycles through: every n-th, starting at its own. */
export function requestsForConnection(requests: readonly HttpRequest[], index: number, connections: number): Request[] {
  const mine: Request[] = [];
  for (let i = index % Math.max(1, requests.length); i < requests.length; i += connections) {
    const request = requests[i];
    if (request !== undefined) mine.push({ ...request });
  }
  return mine.length > 0 ? mine : requests.slice(0, 1).map((request) => ({ ...request }));
}
