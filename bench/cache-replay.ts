/**
 * Replays the benchmark's sequence of cache lookups against the real cache, without HTTP or a
 * database, and prints the share answered from the cache per scenario. It says whether CACHE_MB
 * holds what the benchmark reads, with figures that do not depend on how busy the machine is.
 *
 *   node dist/bench/cache-replay.js [--cache-mb 32] [--rate 6000]   (--rate: the saturated runs' requests/s)
 *
 * Keys, sizes and the order of scenarios follow bench/scenarios.ts and bench/run.ts: 5,000 readers
 * whose list pages, sites, principals and access tokens are counted as the app counts them
 * (cache-memory.js), and PUTs to the other 5,000 users' sites, which invalidate what they touch.
 */
import { parseArgs } from 'node:util';
import { Cache, entryCost } from '../src/cache/cache.js';
import { NO_CHANGE_FEED } from '../src/cache/change-feed.js';
import { GET_RATE, PUT_RATE } from './scenarios.js';

const { values } = parseArgs({ options: { 'cache-mb': { type: 'string', default: '32' }, rate: { type: 'string', default: '6000' } } });
const cacheMb = Number(values['cache-mb']);
const rate = Number(values.rate);

const alwaysReady = { ...NO_CHANGE_FEED, ready: () => true };
const cache = new Cache({ feed: alwaysReady, maxBytes: cacheMb * 1024 * 1024 });
const READERS = 5000;
const SITES_PER_USER = 3;
const ROTATION = 10_000;

const tally = new Map<string, { hits: number; lookups: number }>();
/** `counted`: what the app's entry of this kind is counted as in all (cache-memory.js prints it per kind). */
function lookup(scenario: string, key: string, counted: number, tag: string): void {
  const counts = tally.get(scenario) ?? { hits: 0, lookups: 0 };
  tally.set(scenario, counts);
  counts.lookups++;
  if (cache.get(key) !== undefined) counts.hits++;
  else cache.set(key, key, { tags: [tag], size: counted - entryCost(key, [tag], 0), epoch: cache.epoch });
}

// Each kind's entry as `node --expose-gc dist/bench/cache-memory.js --kind …` counts it.
const PRINCIPAL = 1202;
const TOKEN = 1627;
const PAGE = 4607;
const SITE = 2265;

// One site of every user per pass, as bench/scenarios.ts's siteTargets.
const targets = (first: number) => Array.from({ length: ROTATION }, (_, entry) => ({ user: first + (entry % READERS), site: `${first + (entry % READERS)}/${Math.floor(entry / READERS) % SITES_PER_USER}` }));
const readSites = targets(0);
const writeSites = targets(READERS);

const scenarios: Record<string, { share: number; request(i: number): void }> = {
  'list-jwt': { share: 1, request: (i) => (lookup('list-jwt', `jwt-user:${i % READERS}`, PRINCIPAL, `u${i % READERS}`), lookup('list-jwt', `page:${i % READERS}`, PAGE, `o${i % READERS}`)) },
  'list-pat': { share: 1, request: (i) => (lookup('list-pat', `token:${i % READERS}`, TOKEN, `u${i % READERS}`), lookup('list-pat', `page:${i % READERS}`, PAGE, `o${i % READERS}`)) },
  'get-site': {
    share: 1,
    request: (i) => {
      const target = readSites[i % readSites.length] ?? { user: 0, site: '' };
      lookup('get-site', `jwt-user:${target.user}`, PRINCIPAL, `u${target.user}`);
      lookup('get-site', `site:${target.site}`, SITE, `s${target.site}`);
    },
  },
  // PUTs run at about a third of the GETs' rate and drop the site and its owner's pages.
  'put-site': {
    share: 1 / 3,
    request: (i) => {
      const target = writeSites[i % writeSites.length] ?? { user: 0, site: '' };
      lookup('put-site', `jwt-user:${target.user}`, PRINCIPAL, `u${target.user}`);
      cache.invalidate([`s${target.site}`, `o${target.user}`]);
    },
  },
};

/** The paced rate of each scenario's pairs (bench/scenarios.ts). */
const PACED_RATE: Record<string, number> = { 'list-jwt': GET_RATE, 'list-pat': GET_RATE, 'get-site': GET_RATE, 'put-site': PUT_RATE };

const next = new Map<string, number>();
/** `seconds` of the scenario, paced at its own rate, or saturated at --rate (a PUT at a third of it). */
function run(name: string, seconds: number, saturated: boolean): void {
  const scenario = scenarios[name];
  if (scenario === undefined) return;
  const perSecond = saturated ? rate * scenario.share : (PACED_RATE[name] ?? rate);
  for (let count = 0; count < seconds * perSecond; count++) {
    const i = next.get(name) ?? 0;
    next.set(name, i + 1);
    scenario.request(i);
  }
}

// The benchmark's order: a saturated warm-up (3 s each), then per scenario 5 pairs whose app half
// is 2.5 s at the paced rate, then 5 s saturated.
for (const name of Object.keys(scenarios)) run(name, 3, true);
tally.clear();
for (const name of Object.keys(scenarios)) {
  for (let pair = 0; pair < 5; pair++) run(name, 2.5, false);
  run(name, 5, true);
}

console.log(`CACHE_MB=${cacheMb}, ${rate} requests/s: ${cache.size} entries, ${(cache.bytes / 1048576).toFixed(1)} MB held`);
for (const [name, counts] of tally) console.log(`${name}: ${((100 * counts.hits) / counts.lookups).toFixed(1)}% of lookups answered from the cache`);
await cache.close();
