import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { ManualClock } from '../../test/helpers.js';
import { DatabaseOutage, isDatabaseUnavailable } from './outage.js';

interface Line {
  level: number;
  msg: string;
  err?: { message: string };
  refused?: number;
  refusedSinceLastLine?: number;
  downForMs?: number;
}

function outageWith(probe: () => Promise<unknown>): { outage: DatabaseOutage; clock: ManualClock; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Line);
      callback();
    },
  });
  const clock = new ManualClock();
  // The timer never fires within a test: probes are run by hand.
  const outage = new DatabaseOutage({ log: pino(stream), clock, probe, summaryIntervalMs: 30_000, probeIntervalMs: 3_600_000 });
  return { outage, clock, lines };
}

function refusal(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
}

test('an outage is one error line, then at most one summary per interval, then one line when it ends', async () => {
  let answers = false;
  const { outage, clock, lines } = outageWith(async () => {
    if (!answers) throw refusal();
  });
  try {
    for (let i = 0; i < 500; i++) outage.refused(refusal());
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 50);
    assert.equal(lines[0]?.err?.message, 'connect ECONNREFUSED 127.0.0.1:5432');
    assert.equal(outage.ongoing, true);

    clock.advance(29_999);
    outage.refused(refusal());
    assert.equal(lines.length, 1, 'no summary before the interval has passed');
    clock.advance(1);
    outage.refused(refusal());
    for (let i = 0; i < 100; i++) outage.refused(refusal());
    assert.equal(lines.length, 2);
    assert.deepEqual([lines[1]?.msg, lines[1]?.refused, lines[1]?.refusedSinceLastLine, lines[1]?.downForMs], ['database still unavailable', 502, 501, 30_000]);

    // Without requests, the failing probe still summarises once per interval.
    clock.advance(30_000);
    await outage.probe();
    await outage.probe();
    assert.equal(lines.length, 3);
    assert.deepEqual([lines[2]?.refused, lines[2]?.refusedSinceLastLine], [602, 100]);

    answers = true;
    clock.advance(5_000);
    await outage.probe();
    assert.equal(outage.ongoing, false);
    assert.equal(lines.length, 4);
    assert.deepEqual([lines[3]?.level, lines[3]?.msg, lines[3]?.refused, lines[3]?.downForMs], [30, 'database answers again', 602, 65_000]);

    // A later outage is a new one, logged with its own error.
    outage.refused(refusal());
    assert.equal(lines.length, 5);
    assert.equal(lines[4]?.level, 50);
  } finally {
    outage.close();
  }
});

test('background work failing begins an outage without counting a refused request', async () => {
  const { outage, lines } = outageWith(async () => undefined);
  try {
    outage.failed(refusal());
    outage.failed(refusal());
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 50);
    outage.refused(refusal());
    await outage.probe();
    assert.deepEqual([lines[1]?.msg, lines[1]?.refused], ['database answers again', 1]);
  } finally {
    outage.close();
  }
});

test('a probe while the database answers, or a recovery without an outage, logs nothing', async () => {
  let probes = 0;
  const { outage, lines } = outageWith(async () => probes++);
  try {
    await outage.probe();
    outage.recovered();
    assert.equal(probes, 0);
    assert.deepEqual(lines, []);
  } finally {
    outage.close();
  }
});

test('connection failures count as the database being away, query errors do not', () => {
  assert.equal(isDatabaseUnavailable(refusal()), true);
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })), true);
  assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
  assert.equal(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable')), true);
  assert.equal(isDatabaseUnavailable(new Error('Client was closed and is not queryable')), false, 'closed by the app itself, not lost');
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('duplicate key value'), { code: '23505' })), false);
  assert.equal(isDatabaseUnavailable('ECONNREFUSED'), false);
});
