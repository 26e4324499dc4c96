// Summarises V8 .cpuprofile files (from `npm run bench -- --profile DIR`, which starts the apps and
// the ceilings under `node --cpu-prof`): where a request's main-thread time goes, by part of the
// request and by function.
//
// Usage: node dist/bench/profile-summary.js FILE.cpuprofile... [--top N]
//          [--bench-json FILE --scenario ID --side app|ceiling [--database sqlite|postgres]]
//
// With --bench-json (the bench's --json output of the same run), only the samples taken during
// that scenario's paced halves of the given side count, and the figures are per request answered
// in them. Give every app process's profile for PostgreSQL's two apps: the time is summed over
// them and divided by the halves' answers.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds of the monotonic clock. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Window {
  from: number;
  to: number;
}

/** Where a function lives: a package, Node itself, the service's own code, or V8's bookkeeping. */
function areaOf(frame: CallFrame): string {
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg?.[1] !== undefined) return pkg[1];
  if (frame.url.startsWith('node:')) return 'node internals';
  const own = /\/dist\/(src\/[^/]+|bench)\//.exec(frame.url);
  if (own?.[1] !== undefined) return own[1];
  return frame.url;
}

/**
 * The parts of a request that own everything they call: a sample with one of these anywhere on
 * its stack is that part's, whatever library or Node function it was in (the guard's LRU lookup is
 * the guard's). Checked in this order.
 */
const OWNING_PARTS: ReadonlyArray<readonly [string, RegExp]> = [
  // Asked by the first cache lookup of each event-loop turn, which is the guard's for most requests.
  ["SQLite's change counter (data_version)", /\/dist\/src\/cache\/change-feed\.js/],
  ['auth: guard, JWT or token, principal', /\/dist\/src\/auth\/|\/node_modules\/fast-jwt\//],
  ['logging', /\/dist\/src\/http\/(logging|request-log|log-destination)\.js|\/node_modules\/(pino|sonic-boom)\//],
  ['metrics', /\/dist\/src\/metrics\/|\/node_modules\/prom-client\//],
  ['security headers', /\/dist\/src\/http\/security-headers\.js/],
  ['cache lookup', /\/dist\/src\/cache\/|\/node_modules\/lru-cache\//],
];

const FASTIFY = /\/node_modules\/(fastify|find-my-way|avvio|fast-json-stringify|@fastify\/[^/]+|fast-querystring|toad-cache|fastq|secure-json-parse|ajv|fast-uri|json-schema-ref-resolver)\//;

/** The part of a frame that is not an owning part: the innermost such frame on a stack names the sample's part. */
function partOf(frame: CallFrame): string | undefined {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(program)') return 'V8 and native code (unattributed)';
    if (functionName === 'writev' || functionName === 'writeBuffer' || /^write\w*String$/.test(functionName)) return 'writes (socket, log file)';
    return undefined;
  }
  if (FASTIFY.test(url)) return 'Fastify';
  if (/^node:_http_|^node:http$/.test(url)) return "Node's HTTP";
  if (/^node:(net|stream|internal\/streams?\/)/.test(url)) return "Node's sockets and streams";
  const own = /\/dist\/src\/(.*)\.js$/.exec(url);
  if (own?.[1] !== undefined) return `src/${own[1]}.ts`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1] !== undefined) return pkg[1];
  if (url.startsWith('node:')) return `Node: ${url.replace(/^node:(internal\/)?/, '')}`;
  return undefined;
}

export interface Summary {
  /** Busy (non-idle) main-thread microseconds counted. */
  busyMicros: number;
  parts: Map<string, number>;
  functions: Map<string, { name: string; where: string; area: string; micros: number }>;
}

/** Main-thread time by part and by function, over the given profiles, within `windows` if given. */
export function summariseProfiles(profiles: readonly CpuProfile[], windows?: readonly Window[]): Summary {
  const summary: Summary = { busyMicros: 0, parts: new Map(), functions: new Map() };
  for (const profile of profiles) add(summary, profile, windows);
  return summary;
}

function add(summary: Summary, profile: CpuProfile, windows: readonly Window[] | undefined): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const partOfSample = new Map<number, string>();
  const stackPart = (leaf: number): string => {
    let innermost: string | undefined;
    const owning = new Set<string>();
    for (let id: number | undefined = leaf; id !== undefined; id = parentOf.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (frame === undefined) break;
      for (const [name, pattern] of OWNING_PARTS) if (pattern.test(frame.url)) owning.add(name);
      innermost ??= partOf(frame);
    }
    return OWNING_PARTS.find(([name]) => owning.has(name))?.[0] ?? innermost ?? 'other';
  };

  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (windows !== undefined && !windows.some((window) => time >= window.from && time < window.to)) return;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === '(idle)') return;
    summary.busyMicros += delta;
    let part = partOfSample.get(id);
    if (part === undefined) {
      part = stackPart(id);
      partOfSample.set(id, part);
    }
    summary.parts.set(part, (summary.parts.get(part) ?? 0) + delta);
    const file = frame.url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/');
    const where = frame.url === '' ? '' : `${file}:${frame.lineNumber + 1}`;
    const key = `${frame.functionName}@${where}`;
    const entry = summary.functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, area: areaOf(frame), micros: 0 };
    entry.micros += delta;
    summary.functions.set(key, entry);
  });
}

interface BenchHalf {
  responses: number;
  monotonicMicros?: Window;
}

export interface BenchResults {
  outcomes: Array<{ database: string; scenarios: Array<{ id: string; pairs: Array<{ scenario: BenchHalf; ceiling: BenchHalf }> }> }>;
}

/** The paced halves of one scenario and side in the bench's --json output, and the answers they got. */
export function halvesOf(bench: BenchResults, scenarioId: string, side: 'app' | 'ceiling', database: string | undefined): { windows: Window[]; requests: number } {
  const outcomes = bench.outcomes.filter((outcome) => database === undefined || outcome.database === database);
  if (outcomes.length !== 1) throw new Error(`the results hold ${outcomes.length} databases' runs: choose one with --database`);
  const scenario = outcomes[0]?.scenarios.find((each) => each.id === scenarioId);
  if (scenario === undefined) throw new Error(`the results have no scenario ${scenarioId}`);
  const halves = scenario.pairs.map((pair) => (side === 'app' ? pair.scenario : pair.ceiling));
  const windows = halves.flatMap((half) => (half.monotonicMicros === undefined ? [] : [half.monotonicMicros]));
  if (windows.length === 0) throw new Error(`the halves of ${scenarioId} carry no times (a bench run from before they were recorded)`);
  return { windows, requests: halves.reduce((sum, half) => sum + half.responses, 0) };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' }, 'bench-json': { type: 'string' }, scenario: { type: 'string' }, side: { type: 'string', default: 'app' }, database: { type: 'string' } },
  });
  const top = Number(values.top);
  const side = values.side;
  if (positionals.length === 0 || !Number.isInteger(top) || (side !== 'app' && side !== 'ceiling') || (values['bench-json'] !== undefined) !== (values.scenario !== undefined)) {
    process.stderr.write('usage: node dist/bench/profile-summary.js FILE.cpuprofile... [--top N] [--bench-json FILE --scenario ID --side app|ceiling [--database sqlite|postgres]]\n');
    process.exit(2);
  }
  const benchJson = values['bench-json'];
  const halves = benchJson === undefined || values.scenario === undefined ? undefined : halvesOf(JSON.parse(readFileSync(benchJson, 'utf8')) as BenchResults, values.scenario, side, values.database);
  const summary = summariseProfiles(
    positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile),
    halves?.windows,
  );

  const per = (micros: number) => (halves === undefined ? `${(micros / 1000).toFixed(0)} ms` : `${(micros / halves.requests).toFixed(1)} µs`);
  const share = (micros: number) => `${((micros / summary.busyMicros) * 100).toFixed(1)}%`;
  const unit = halves === undefined ? 'self time' : 'per request';
  const lines = [
    halves === undefined
      ? `${positionals.join(', ')}: ${(summary.busyMicros / 1e6).toFixed(1)} s busy on the main thread`
      : `${values.scenario} (${side}): ${(summary.busyMicros / 1000).toFixed(0)} ms busy on the main thread over ${halves.windows.length} paced halves, ${halves.requests} requests: ${per(summary.busyMicros)} a request`,
    '',
    `| ${unit} | share | part of the request |`,
    '|---:|---:|---|',
    ...[...summary.parts].sort((a, b) => b[1] - a[1]).slice(0, top).map(([part, micros]) => `| ${per(micros)} | ${share(micros)} | ${part} |`),
    '',
    `| ${unit} | share | function | where |`,
    '|---:|---:|---|---|',
    ...[...summary.functions.values()].sort((a, b) => b.micros - a.micros).slice(0, top).map((entry) => `| ${per(entry.micros)} | ${share(entry.micros)} | ${entry.name} | ${entry.where || entry.area} |`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
