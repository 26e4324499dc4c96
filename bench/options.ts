import { SCENARIO_IDS, type ScenarioId } from './scenarios.js';

/**
 * The Node flags `npm start` runs the app with (package.json): a smaller young generation and
 * earlier full collections keep RSS down, and stack traces name the TypeScript source
 * (docs/decisions/node-heap-flags.md).
 */
export const APP_NODE_FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=25', '--enable-source-maps'];

/** What one `npm run bench` does; every field has a command-line option (see USAGE). */
export interface BenchOptions {
  /** Alternated pairs (ceiling, then scenario) at the scenario's paced rate: the CPU ratio is their median. */
  pairs: number;
  /**
   * Seconds of each half of a pair, at the paced rate. CPU time is read in 10 ms ticks, so each
   * reading of a process is off by up to a tick at either end: a half must cost the servers some
   * hundreds of ms of CPU for that to stay within a few percent. 2.5 s is 5,000 requests at the GET
   * rate, 12,500 at the public one and 1,250 PUTs, each several hundred ms of a bare server's CPU
   * even at its cheapest; longer halves would only leave more time for the host's load to change
   * between the two halves of a pair.
   */
  pairSeconds: number;
  /** Seconds of the one saturated (autocannon) run of each scenario and of its ceiling, printed only. */
  saturatedSeconds: number;
  /** Seconds of unrecorded load per scenario before its first pair, so the JIT has settled. */
  warmupSeconds: number;
  /** Seconds of the mixed load (reads, writes, logins, bad input) whose end RSS has a target. */
  mixedSeconds: number;
  /** autocannon's connections in the saturated runs and the mixed load. */
  connections: number;
  /** CACHE_MB of the app process whose RSS growth is read while its cache fills. */
  cacheMb: number;
  quick: boolean;
  users: number;
  sitesPerUser: number;
  tokens: number;
  /** Event streams held open at once in the public-streams scenario. */
  streams: number;
  scenarios: ScenarioId[];
  /** The app's LOG_LEVEL; "info" is the production default (src/config.ts). */
  logLevel: string;
  /** Also run on PostgreSQL: a role there that may CREATE DATABASE (a throw-away one is made). */
  databaseUrl: string | undefined;
  /** Skip SQLite (with DATABASE_URL: PostgreSQL only). */
  skipSqlite: boolean;
  /** App processes on the one PostgreSQL database, the load spread over them. */
  postgresApps: number;
  /** The PUT ceiling also writes a history row per PUT, as the app does (off only to compare). */
  putCeilingHistory: boolean;
  jsonFile: string | undefined;
  /** Start the apps and the ceilings under `node --cpu-prof`, writing .cpuprofile files here. */
  profileDir: string | undefined;
  /** The app's Node flags: npm start's unless an experiment replaces them (heap sizes, say). */
  nodeArgs: string[];
  /** The ceilings' Node flags: none unless an experiment gives them the app's, to see what the flags cost. */
  ceilingNodeArgs: string[];
}

export const USAGE = `Usage: npm run bench -- [options]

  --pairs N           alternated ceiling/scenario pairs at the paced rate (default 5; --quick: 1)
  --pair-seconds S    seconds of each half of a pair (default 2.5; --quick: 0.05)
  --saturated-seconds S  seconds of the saturated run of each scenario and ceiling (default 5; --quick: 0.1)
  --warmup S          unrecorded seconds per scenario before its first pair (default 3; --quick: 0.05)
  --mixed-duration S  seconds of the mixed load, after the rest (default 120; --quick: 1)
  --connections N     autocannon connections of the saturated runs and the mixed load (default 50)
  --cache-mb N        CACHE_MB of the app whose RSS is read as its cache fills (default 32; --quick: 1)
  --quick             tiny counts: every measure once, in well under a minute on SQLite; figures mean nothing
  --users N           seeded users (default 10000)
  --sites-per-user N  seeded sites per user (default 3, so 30000 sites)
  --tokens N          seeded personal access tokens, one per user (default: as many as users)
  --streams N         event streams held open on one app in public-streams (default 10000; --quick: 200)
  --scenarios a,b     only these scenarios (${SCENARIO_IDS.join(', ')})
  --log-level L       the app's LOG_LEVEL (default info, the production default)
  --no-sqlite         with DATABASE_URL set, run on PostgreSQL only
  --postgres-apps N   app processes on the PostgreSQL database, load spread over them (default 2)
  --put-ceiling-without-history  the PUT ceiling writes no history row (the app always does; to compare)
  --json FILE         also write every run's raw figures as JSON
  --profile DIR       run the apps and the ceilings under node --cpu-prof; profiles land in DIR
  --node-args "FLAGS" Node flags for the app instead of npm start's (default "${APP_NODE_FLAGS.join(' ')}"; "" for none)
  --ceiling-node-args "FLAGS"  Node flags for the ceilings (default none; the app's, to see what they cost)

Environment: DATABASE_URL=postgres://… also runs every scenario on PostgreSQL, with --postgres-apps
app processes on a database the benchmark creates and drops (the role needs CREATEDB); the database
named in the URL is untouched.`;

export class UsageError extends Error {
  override name = 'UsageError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function parseOptions(argv: readonly string[], env: Record<string, string | undefined>): BenchOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const valued = new Set(['pairs', 'pair-seconds', 'saturated-seconds', 'warmup', 'mixed-duration', 'connections', 'cache-mb', 'users', 'sites-per-user', 'tokens', 'streams', 'scenarios', 'log-level', 'json', 'profile', 'node-args', 'ceiling-node-args', 'postgres-apps']);
  const booleans = new Set(['quick', 'no-sqlite', 'put-ceiling-without-history', 'help']);
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i] ?? '';
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argument);
    const name = match?.[1];
    if (name === undefined) throw new UsageError(`unexpected argument "${argument}"`);
    if (booleans.has(name)) {
      if (match?.[2] !== undefined) throw new UsageError(`--${name} takes no value`);
      flags.add(name);
    } else if (valued.has(name)) {
      const value = match?.[2] ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      values.set(name, value);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  if (flags.has('help')) throw new UsageError('');

  const quick = flags.has('quick');
  const users = integer(values, 'users', 10_000, 1);
  const scenarios = parseScenarios(values.get('scenarios'));
  const logLevel = values.get('log-level') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL?.trim() === '' ? undefined : env.DATABASE_URL?.trim();
  const skipSqlite = flags.has('no-sqlite');
  if (skipSqlite && databaseUrl === undefined) throw new UsageError('--no-sqlite needs DATABASE_URL (nothing would run)');
  return {
    pairs: integer(values, 'pairs', quick ? 1 : 5, 1),
    pairSeconds: seconds(values, 'pair-seconds', quick ? 0.05 : 2.5),
    saturatedSeconds: seconds(values, 'saturated-seconds', quick ? 0.1 : 5),
    warmupSeconds: seconds(values, 'warmup', quick ? 0.05 : 3, true),
    mixedSeconds: seconds(values, 'mixed-duration', quick ? 1 : 120),
    connections: integer(values, 'connections', 50, 1),
    cacheMb: integer(values, 'cache-mb', quick ? 1 : 32, 1),
    quick,
    users,
    sitesPerUser: integer(values, 'sites-per-user', 3, 1),
    tokens: integer(values, 'tokens', users, 1),
    streams: integer(values, 'streams', quick ? 200 : 10_000, 1),
    scenarios,
    logLevel,
    databaseUrl,
    skipSqlite,
    postgresApps: integer(values, 'postgres-apps', 2, 1),
    putCeilingHistory: !flags.has('put-ceiling-without-history'),
    jsonFile: values.get('json'),
    profileDir: values.get('profile'),
    nodeArgs: (values.get('node-args') ?? APP_NODE_FLAGS.join(' ')).split(/\s+/).filter((flag) => flag !== ''),
    ceilingNodeArgs: (values.get('ceiling-node-args') ?? '').split(/\s+/).filter((flag) => flag !== ''),
  };
}

function integer(values: Map<string, string>, name: string, fallback: number, minimum: number): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < minimum) throw new UsageError(`--${name} must be a whole number of at least ${minimum}, not "${text}"`);
  return value;
}

function seconds(values: Map<string, string>, name: string, fallback: number, zeroAllowed = false): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed)) throw new UsageError(`--${name} must be a positive number of seconds, not "${text}"`);
  return value;
}

function parseScenarios(text: string | undefined): ScenarioId[] {
  if (text === undefined) return [...SCENARIO_IDS];
  const chosen = text.split(',').map((id) => id.trim()).filter((id) => id !== '');
  const unknown = chosen.filter((id) => !(SCENARIO_IDS as readonly string[]).includes(id));
  if (unknown.length > 0 || chosen.length === 0) throw new UsageError(`--scenarios takes a comma-separated list of ${SCENARIO_IDS.join(', ')}`);
  // Kept in the canonical order: login after the rest (its argon2 buffers raise RSS), the mixed load last.
  return SCENARIO_IDS.filter((id) => chosen.includes(id));
}
