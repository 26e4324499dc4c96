import type { Request } from 'autocannon';
import type { SeedData } from './seed.js';

/** In running order: login last, because argon2's buffers raise the RSS of everything after it. */
export const SCENARIO_IDS = ['list-jwt', 'list-pat', 'get-site', 'put-site', 'healthz', 'magic-page', 'login'] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

/** The targets of DESIGN.md "Performance"; null where none is set (the scenario informs). */
export interface Target {
  minRatio: number | null;
  maxP99Ms: number | null;
}

export const MAX_RSS_MB = 200;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Scenario {
  id: ScenarioId;
  /** The request, as the table names it. */
  label: string;
  unit: 'req/s' | 'logins/s';
  target: Target;
  /** Cycled through by the connections, each taking every n-th, so load rotates over users and rows. */
  requests: HttpRequest[];
  /**
   * Judges one answer before the load: 'ok', 'unavailable' (the route does not exist yet), or why
   * the scenario would measure the wrong thing.
   */
  check(status: number, body: string): 'ok' | 'unavailable' | string;
}

export interface ScenarioInputs {
  seed: SeedData;
  /** A valid JWT per seeded user, in the same order. */
  jwts: string[];
  /** How many distinct requests a scenario cycles through: enough that no row or credential is hot. */
  rotation: number;
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

export function buildScenarios({ seed, jwts, rotation }: ScenarioInputs): Scenario[] {
  const bearer = (user: number) => ({ authorization: `Bearer ${jwts[user] ?? ''}` });
  // Reads use the first half of the users, writes the second: a PUT never changes a page the
  // read scenarios fetch, so every list answer keeps the size of the baseline's body.
  const half = Math.max(1, Math.ceil(seed.users.length / 2));
  const readers = seed.users.slice(0, Math.min(half, rotation)).map((user, index) => ({ user, index }));
  const firstPage = Math.min(50, seed.users[0]?.siteIds.length ?? 0);
  const readSites = siteTargets(seed, 0, half, rotation);
  const writeSites = seed.users.length > 1 ? siteTargets(seed, half, seed.users.length, rotation) : readSites;
  const authenticatedGet: Target = { minRatio: 0.5, maxP99Ms: 10 };

  const scenarios: Scenario[] = [
    {
      id: 'list-jwt',
      label: 'GET /api/v1/sites, Bearer JWT',
      unit: 'req/s',
      target: authenticatedGet,
      requests: readers.map(({ index }) => ({ method: 'GET', path: '/api/v1/sites', headers: bearer(index) })),
      check: listCheck(firstPage),
    },
    {
      id: 'list-pat',
      label: 'GET /api/v1/sites, Token PAT',
      unit: 'req/s',
      target: authenticatedGet,
      requests: readers.flatMap(({ user }) =>
        user.accessToken === null ? [] : [{ method: 'GET' as const, path: '/api/v1/sites', headers: { authorization: `Token ${user.accessToken}` } }],
      ),
      check: listCheck(firstPage),
    },
    {
      id: 'get-site',
      label: 'GET /api/v1/sites/{id}, Bearer JWT',
      unit: 'req/s',
      target: authenticatedGet,
      requests: readSites.map(({ user, siteId }) => ({ method: 'GET', path: `/api/v1/sites/${siteId}`, headers: bearer(user) })),
      check: statusCheck(200),
    },
    {
      id: 'put-site',
      label: 'PUT /api/v1/sites/{id}, 1 KB partial, JWT',
      unit: 'req/s',
      target: { minRatio: 0.25, maxP99Ms: 10 },
      requests: writeSites.map(({ user, siteId }, index) => ({
        method: 'PUT',
        path: `/api/v1/sites/${siteId}`,
        headers: { ...bearer(user), ...json },
        body: siteUpdateBody(index),
      })),
      check: statusCheck(200),
    },
    {
      id: 'healthz',
      label: 'GET /healthz (framework floor, no target)',
      unit: 'req/s',
      target: { minRatio: null, maxP99Ms: null },
      requests: [{ method: 'GET', path: '/healthz', headers: {} }],
      check: statusCheck(200),
    },
    {
      id: 'magic-page',
      label: 'GET /magic?token=x page',
      unit: 'req/s',
      target: { minRatio: null, maxP99Ms: 10 },
      requests: [{ method: 'GET', path: '/magic?token=x', headers: { accept: 'text/html' } }],
      // An unknown token may well be answered 400 or 410 with a page; only a missing route or a crash is not measurable.
      check: (status, body) => (status === 404 ? 'unavailable' : status < 500 ? 'ok' : `got ${status}: ${body.slice(0, 200)}`),
    },
    {
      id: 'login',
      label: 'POST /auth/login (argon2id)',
      unit: 'logins/s',
      target: { minRatio: null, maxP99Ms: null },
      requests: readers.map(({ user }) => ({ method: 'POST', path: '/auth/login', headers: json, body: JSON.stringify({ email: user.email, password: seed.password }) })),
      check: statusCheck(200),
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
