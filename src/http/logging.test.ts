import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { buildTestApp } from '../../test/helpers.js';
import { createLoggers, LazyChildLogger } from './logging.js';

// Runs once, on SQLite: it checks the request log's lines, which no query writes.

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines };
}

test('the request line holds the id, method, URL without credentials, client address, status and duration, and nothing else', async () => {
  const t = await buildTestApp();
  try {
    await t.app.inject({ method: 'GET', url: '/magic?token=very-secret-token&x=1', headers: { accept: 'text/html', authorization: 'Bearer not-logged' } });
    const line = t
      .logs()
      .split('\n')
      .filter((text) => text !== '')
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.msg === 'request');
    assert.ok(line !== undefined, 'a request line was written');
    assert.equal(line.url, '/magic?token=[REDACTED]&x=1');
    assert.equal(line.method, 'GET');
    assert.equal(typeof line.reqId, 'string');
    assert.equal(typeof line.status, 'number');
    assert.equal(typeof line.ms, 'number');
    assert.deepEqual(Object.keys(line).sort(), ['hostname', 'ip', 'level', 'method', 'ms', 'msg', 'pid', 'reqId', 'status', 'time', 'url']);
    assert.ok(!t.logs().includes('very-secret-token'));
    assert.ok(!t.logs().includes('not-logged'));
  } finally {
    await t.close();
  }
});

test("a request's own logger, made on first use, carries its bindings and redacts like the app's", () => {
  const { stream, lines } = capture();
  const { app } = createLoggers('info', stream);
  const requestLog = new LazyChildLogger(app, { reqId: 'request-1' }, {});
  requestLog.info({ password: 'hunter2', user: { token: 'abc' } }, 'signing in');
  requestLog.child({ step: 'two' }).warn({ otp: '123456' }, 'second step');
  const [first, second] = lines();
  assert.equal(first?.reqId, 'request-1');
  assert.equal(first?.password, '[REDACTED]');
  assert.deepEqual(first?.user, { token: '[REDACTED]' });
  assert.equal(first?.msg, 'signing in');
  assert.equal(second?.reqId, 'request-1');
  assert.equal(second?.step, 'two');
  assert.equal(second?.otp, '[REDACTED]');
  assert.equal(requestLog.level, 'info');
});

/** Runs a process that logs through the service's own destination, then ends as `ending` says. */
function logThenEnd(ending: string): { stdout: string; status: number | null } {
  const logging = new URL('./logging.js', import.meta.url).href;
  const script = `import { createLoggers } from ${JSON.stringify(logging)};
const { app } = createLoggers('info');
for (let i = 0; i < 500; i++) app.info({ i }, 'request');
app.error('last words');
${ending}`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  return { stdout: result.stdout, status: result.status };
}

function loggedNumbers(stdout: string): number[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { i?: number })
    .flatMap((line) => (line.i === undefined ? [] : [line.i]));
}

test('lines buffered by the log are all written when the process exits, cleanly or on an uncaught error', () => {
  for (const ending of ['process.exit(0);', "throw new Error('crash');", "Promise.reject(new Error('crash'));", '']) {
    const { stdout, status } = logThenEnd(ending);
    assert.deepEqual(loggedNumbers(stdout), Array.from({ length: 500 }, (_, i) => i), `every line, in order, after: ${ending || 'a natural end'}`);
    assert.match(stdout.slice(-200), /"msg":"last words"\}\n$/, `the last line, after: ${ending || 'a natural end'}`);
    assert.equal(status, ending.includes('crash') ? 1 : 0);
  }
});

test('a quiet server writes its lines without waiting for the buffer to fill', async () => {
  const logging = new URL('./logging.js', import.meta.url).href;
  const script = `import { createLoggers } from ${JSON.stringify(logging)};
const { app } = createLoggers('info');
app.info('one line');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    assert.match(chunk.toString('utf8'), /"msg":"one line"/);
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
});
