import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLoggers } from '../http/logging.js';
import { ServedConfigurations } from './served-log.js';

function logged(): { lines: () => Array<Record<string, unknown>>; served: ServedConfigurations } {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      callback();
    },
  });
  // An interval no test waits for: each writes by flush() or close().
  const served = new ServedConfigurations(createLoggers('info', stream).requestLines, 3_600_000);
  const lines = () =>
    written
      .join('')
      .split('\n')
      .filter((text) => text !== '')
      .map((text) => JSON.parse(text) as Record<string, unknown>);
  return { lines, served };
}

test('answers are summed per client address and URL, by method and status, and written once per interval', () => {
  const { lines, served } = logged();
  served.count('192.0.2.1', 'GET', '/public/v1/sites/spk_a', 200);
  served.count('192.0.2.1', 'GET', '/public/v1/sites/spk_a', 200);
  served.count('192.0.2.1', 'GET', '/public/v1/sites/spk_a', 304);
  served.count('192.0.2.1', 'HEAD', '/public/v1/sites/spk_a', 200);
  served.count('192.0.2.1', 'GET', '/public/v1/sites/spk_b', 200);
  served.count('2001:db8::1', 'GET', '/public/v1/sites/spk_a', 304);
  assert.deepEqual(lines(), [], 'nothing is written before the interval ends');
  served.flush();
  assert.deepEqual(
    lines().map(({ ip, url, answers, msg }) => ({ ip, url, answers, msg })),
    [
      { ip: '192.0.2.1', url: '/public/v1/sites/spk_a', answers: { 'GET 200': 2, 'GET 304': 1, 'HEAD 200': 1 }, msg: 'public configurations served' },
      { ip: '192.0.2.1', url: '/public/v1/sites/spk_b', answers: { 'GET 200': 1 }, msg: 'public configurations served' },
      { ip: '2001:db8::1', url: '/public/v1/sites/spk_a', answers: { 'GET 304': 1 }, msg: 'public configurations served' },
    ],
  );
  served.flush();
  assert.equal(lines().length, 3, 'a quiet interval writes nothing');
  served.close();
});

/** Lets the event loop turn until nothing more is written. */
async function settled(lines: () => unknown[]): Promise<number> {
  for (let before = -1, turns = 0; turns < 1000; turns++) {
    const now = lines().length;
    if (now === before) return now;
    before = now;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the lines kept coming');
}

test("an interval's lines are written over several turns of the event loop, each line whole", async () => {
  const { lines, served } = logged();
  for (let i = 0; i < 1000; i++) served.count('192.0.2.1', 'GET', `/public/v1/sites/spk_${i}`, 200);
  served.flush();
  const first = lines().length;
  assert.ok(first > 0 && first < 1000, `lines written in the turn of the write: ${first}`);
  assert.equal(await settled(lines), 1000);
  assert.deepEqual(
    lines().map((line) => line.url),
    Array.from({ length: 1000 }, (_, i) => `/public/v1/sites/spk_${i}`),
  );
  served.close();
});

test('a flood of distinct clients is written in batches as it comes, none dropped, in order, and what is left at close', async () => {
  const { lines, served } = logged();
  const clients = 25_001;
  const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  for (let i = 0; i < clients; i++) served.count(address(i), 'GET', '/public/v1/sites/spk_a', 200);
  // Two batches filled up; the first was written out when the second needed its turn.
  const early = lines().length;
  assert.ok(early >= 10_000 && early < clients, `written before the interval ended: ${early}`);
  await settled(lines);
  served.close();
  const all = lines();
  assert.equal(all.length, clients);
  assert.deepEqual(
    all.map((line) => line.ip),
    Array.from({ length: clients }, (_, i) => address(i)),
  );
  assert.ok(all.every((line) => (line.answers as Record<string, number>)['GET 200'] === 1));
});

test('close writes a pending interval whole, at once', () => {
  const { lines, served } = logged();
  for (let i = 0; i < 1000; i++) served.count('192.0.2.1', 'HEAD', `/public/v1/sites/spk_${i}`, 304);
  served.close();
  assert.equal(lines().length, 1000);
  assert.ok(lines().every((line) => JSON.stringify(line.answers) === '{"HEAD 304":1}'));
});
