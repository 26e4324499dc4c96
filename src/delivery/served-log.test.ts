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
  const served = new ServedConfigurations(createLoggers('info', stream).summedLines, 3_600_000);
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

test('a flood of distinct clients is written in batches as it comes, none dropped, and what is left at close', () => {
  const { lines, served } = logged();
  const clients = 25_001;
  for (let i = 0; i < clients; i++) served.count(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'GET', '/public/v1/sites/spk_a', 200);
  const early = lines().length;
  assert.ok(early >= 20_000 && early < clients, `written before the interval ended: ${early}`);
  served.close();
  const all = lines();
  assert.equal(all.length, clients);
  assert.equal(new Set(all.map((line) => line.ip)).size, clients);
  assert.ok(all.every((line) => (line.answers as Record<string, number>)['GET 200'] === 1));
});
