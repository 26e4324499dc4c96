import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** A port free on 127.0.0.1 now, for a server whose PUBLIC_URL must name its port before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
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
  const deadline = Date.now() + 30_000;
  while (!output.includes('Siteward is serving')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { process: child, base: `http://127.0.0.1:${port}`, output: () => output };
}

/** SIGTERM, then the exit code once the process has closed. */
export async function stopServer(running: RunningServer): Promise<number | null> {
  if (running.process.exitCode !== null) return running.process.exitCode;
  const exited = once(running.process, 'exit') as Promise<[number | null]>;
  running.process.kill('SIGTERM');
  const [code] = await exited;
  return code;
}
