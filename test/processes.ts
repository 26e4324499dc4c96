import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresDatabase, STRONG_PASSWORD } from './helpers.js';
import { until } from './wait.js';

/**
 * A port free on 127.0.0.1 now, for a server whose PUBLIC_URL must name its port before it starts.
 * Drawn below the kernel's ephemeral range (32768 and up on Linux): a port from that range can be
 * handed to an outgoing connection (to PostgreSQL, SMTP, a load generator) between this check and
 * the server's own listen, which then fails with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000 after 100 tries');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));


export interface RunningServer {
  process: ChildProcess;
  base: string;
  output: () => string;
}

/**
 * Starts the real entry point, as `npm start` does, with only the given environment (and any extra
 * node flags), and waits until it serves.
 */
export async function startServer(port: number, env: Record<string, string>, nodeFlags: string[] = []): Promise<RunningServer> {
  const child = spawn(process.execPath, [...nodeFlags, MAIN], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await until(
      () => {
        if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
        return output.includes('Siteward is serving');
      },
      'the server to serve',
      { timeoutMs: 30_000, intervalMs: 50 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`server did not start (${error instanceof Error ? error.message : String(error)}):\n${output}`);
  }
  return { process: child, base: `http://127.0.0.1:${port}`, output: () => output };
}

/** SIGTERM, then the exit code once the process has closed. */
export async function stopServer(running: RunningServer): Promise<number | null> {
  // A process killed by a signal has no exit code, but it has ended all the same.
  if (running.process.exitCode !== null || running.process.signalCode !== null) return running.process.exitCode;
  const exited = once(running.process, 'exit') as Promise<[number | null]>;
  running.process.kill('SIGTERM');
  const [code] = await exited;
  return code;
}

/** The environment of app servers sharing one new database, and how to remove what it made. */
export interface SharedEnvironment {
  env: Record<string, string>;
  /** The PostgreSQL database's address, when the servers share one. */
  databaseUrl: string | undefined;
  /** Drops the database and deletes the data directory (once the servers are stopped). */
  remove(): Promise<void>;
}

/**
 * For app servers sharing one database, as behind a load balancer: PostgreSQL when
 * TEST_DATABASE_URL is set, else one SQLite file in a new data directory; fresh secrets, and
 * `settings` on top (PUBLIC_URL is http://localhost:3000 unless they say otherwise).
 */
export async function sharedEnvironment(settings: Record<string, string> = {}): Promise<SharedEnvironment> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-servers-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://localhost:3000',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...settings,
  };
  const adminUrl = process.env.TEST_DATABASE_URL;
  const database = adminUrl === undefined || adminUrl === '' ? undefined : await createPostgresDatabase(adminUrl);
  if (database !== undefined) env.DATABASE_URL = database.url;
  return {
    env,
    databaseUrl: database?.url,
    remove: async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Two app servers on one new database, as behind a load balancer. */
export interface ServerPair {
  a: RunningServer;
  b: RunningServer;
  /** The environment both run with: for the command line, or another server on the same database. */
  env: Record<string, string>;
  /** The PostgreSQL database's address, when they share one. */
  databaseUrl: string | undefined;
  /** Stops both servers, then drops the database and deletes the data directory. */
  close(): Promise<void>;
}

/**
 * Starts two app servers on one new database (see sharedEnvironment), one after the other, or
 * `together` (to see that on an empty database the migrations run once and do not race).
 * `settings` are given the first server's origin, http://localhost:<port>, for a PUBLIC_URL that
 * names a server that answers.
 */
export async function startServerPair(options: { settings?: (origin: string) => Record<string, string>; together?: boolean } = {}): Promise<ServerPair> {
  const [portA, portB] = [await freePort(), await freePort()];
  const shared = await sharedEnvironment(options.settings?.(`http://localhost:${portA}`) ?? {});
  const started =
    options.together === true
      ? await Promise.allSettled([startServer(portA, shared.env), startServer(portB, shared.env)])
      : await startedInTurn([() => startServer(portA, shared.env), () => startServer(portB, shared.env)]);
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const close = async () => {
    await Promise.all(running.map((server) => stopServer(server)));
    await shared.remove();
  };
  const [a, b] = running;
  if (a === undefined || b === undefined) {
    await close();
    const failure = started.find((result) => result.status === 'rejected');
    throw failure?.status === 'rejected' ? failure.reason : new Error('the servers did not start');
  }
  return { a, b, env: shared.env, databaseUrl: shared.databaseUrl, close };
}

/** Runs each start once the one before has served; stops at the first that fails. */
async function startedInTurn(starts: Array<() => Promise<RunningServer>>): Promise<Array<PromiseSettledResult<RunningServer>>> {
  const results: Array<PromiseSettledResult<RunningServer>> = [];
  for (const start of starts) {
    try {
      results.push({ status: 'fulfilled', value: await start() });
    } catch (reason) {
      results.push({ status: 'rejected', reason });
      break;
    }
  }
  return results;
}

/** Someone signed up on a running server: their id, address and the Authorization header of their JWT. */
export interface ServerUser {
  id: string;
  email: string;
  bearer: string;
}

/** Signs a new person up on a running server (POST /auth/signup), as signUp does in-process. */
export async function signUpOn(server: RunningServer, email = `user-${randomBytes(4).toString('hex')}@example.com`): Promise<ServerUser> {
  const answer = await callJson<{ token: string; user: { id: string } }>(server, 'POST', '/auth/signup', undefined, { email, password: STRONG_PASSWORD });
  if (answer.status !== 201) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.json)}`);
  return { id: answer.json.user.id, email, bearer: `Bearer ${answer.json.token}` };
}

/** A JSON request to a running server: its status and its parsed body (null when empty). */
export async function callJson<T>(server: RunningServer, method: string, url: string, authorization: string | undefined, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await fetch(`${server.base}${url}`, {
    method,
    headers: { ...(authorization === undefined ? {} : { authorization }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: (text === '' ? null : JSON.parse(text)) as T };
}
