import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BenchResults, type CallFrame, type CpuProfile, halvesOf, summariseProfiles } from './profile-summary.js';

const APP = 'file:///srv/siteward/dist/src';
const MODULES = 'file:///srv/siteward/node_modules';

function frame(functionName: string, url = ''): CallFrame {
  return { functionName, url, lineNumber: 0 };
}

/**
 * A profile of one request's stacks: Fastify's hook runs the guard, which looks the principal up
 * in lru-cache; the route's handler sends through Node's HTTP onto the socket; V8 collects garbage.
 */
function profile(samples: ReadonlyArray<readonly [node: number, atMicros: number]>): CpuProfile {
  const nodes = [
    { id: 1, callFrame: frame('(root)'), children: [2, 7, 8] },
    { id: 2, callFrame: frame('hookRunner', `${MODULES}/fastify/lib/hooks.js`), children: [3, 5] },
    { id: 3, callFrame: frame('authenticate', `${APP}/auth/guard.js`), children: [4] },
    { id: 4, callFrame: frame('get', `${MODULES}/lru-cache/dist/esm/index.js`) },
    { id: 5, callFrame: frame('handler', `${APP}/sites/routes.js`), children: [6] },
    { id: 6, callFrame: frame('_storeHeader', 'node:_http_outgoing'), children: [9] },
    { id: 7, callFrame: frame('(garbage collector)') },
    { id: 8, callFrame: frame('(idle)') },
    { id: 9, callFrame: frame('writev') },
  ];
  const startTime = 1_000_000;
  let last = startTime;
  const timeDeltas = samples.map(([, at]) => {
    const delta = startTime + at - last;
    last = startTime + at;
    return delta;
  });
  return { nodes, startTime, samples: samples.map(([node]) => node), timeDeltas };
}

test('each sample goes to the part that owns its stack: the guard owns its cache lookup; otherwise the innermost known frame names it; idle is left out', () => {
  const summary = summariseProfiles([
    profile([
      [4, 100],
      [4, 200],
      [6, 300],
      [9, 400],
      [7, 500],
      [8, 600],
      [5, 700],
    ]),
  ]);
  assert.equal(summary.busyMicros, 600, 'the idle sample is not busy time');
  assert.deepEqual(Object.fromEntries(summary.parts), {
    'auth: guard, JWT or token, principal': 200,
    "Node's HTTP": 100,
    'writes (socket, log file)': 100,
    'garbage collection': 100,
    'src/sites/routes.ts': 100,
  });
  assert.equal(summary.functions.get(`get@node_modules/lru-cache/dist/esm/index.js:1`)?.micros, 200);
});

test('with windows, only the samples inside them count, over every profile given', () => {
  // Samples at 100 µs steps; the window takes those taken in [1,000,250, 1,000,450).
  const one = profile([
    [4, 100],
    [4, 200],
    [6, 300],
    [9, 400],
    [7, 500],
  ]);
  const windows = [{ from: 1_000_250, to: 1_000_450 }];
  const summary = summariseProfiles([one, one], windows);
  assert.equal(summary.busyMicros, 400);
  assert.deepEqual(Object.fromEntries(summary.parts), { "Node's HTTP": 200, 'writes (socket, log file)': 200 });
});

test("the bench's results give each side's paced halves and the answers in them; results without times are refused", () => {
  const half = (from: number, responses: number) => ({ responses, monotonicMicros: { from, to: from + 2_500_000 } });
  const results: BenchResults = {
    outcomes: [
      {
        database: 'sqlite',
        scenarios: [
          { id: 'list-jwt', pairs: [{ ceiling: half(0, 5000), scenario: half(3_000_000, 4999) }, { ceiling: half(6_000_000, 5000), scenario: half(9_000_000, 5000) }] },
        ],
      },
      { database: 'postgres', scenarios: [{ id: 'list-jwt', pairs: [{ ceiling: { responses: 5000 }, scenario: { responses: 5000 } }] }] },
    ],
  };
  assert.deepEqual(halvesOf(results, 'list-jwt', 'app', 'sqlite'), {
    windows: [
      { from: 3_000_000, to: 5_500_000 },
      { from: 9_000_000, to: 11_500_000 },
    ],
    requests: 9999,
  });
  assert.equal(halvesOf(results, 'list-jwt', 'ceiling', 'sqlite').requests, 10_000);
  assert.throws(() => halvesOf(results, 'list-jwt', 'app', undefined), /2 databases/);
  assert.throws(() => halvesOf(results, 'list-jwt', 'app', 'postgres'), /carry no times/);
  assert.throws(() => halvesOf(results, 'get-site', 'app', 'sqlite'), /no scenario get-site/);
});
