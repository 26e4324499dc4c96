import { describe, expect, test } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '@server/webhooks/contract';
import { attemptText, deliveryState, eventLabel, WEBHOOK_EVENTS, webhookState } from './webhookText';

describe('webhook events', () => {
  test('every event the server sends has a label and a description, in its order', () => {
    expect(WEBHOOK_EVENTS.map((event) => event.type)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const event of WEBHOOK_EVENTS) {
      expect(event.label).not.toBe('');
      expect(event.description).toMatch(/\.$/);
    }
  });

  test('the test event and unknown types are named', () => {
    expect(eventLabel('webhook.test')).toBe('Test event');
    expect(eventLabel('site.updated')).toBe('Site changed');
    expect(eventLabel('site.renamed')).toBe('site.renamed');
  });
});

describe('webhook state', () => {
  test('on, failing, off by a person and off after failures read differently', () => {
    expect(webhookState({ enabled: true, disabled_reason: null, failing_since: null })).toEqual({ label: 'Active', kind: 'success' });
    const failing = webhookState({ enabled: true, disabled_reason: null, failing_since: '2026-11-20T10:00:00.000Z' });
    expect(failing.label).toBe('Failing');
    expect(failing.detail).toMatch(/3 days/);
    expect(webhookState({ enabled: false, disabled_reason: null, failing_since: null }).label).toBe('Off');
    const turnedOff = webhookState({ enabled: false, disabled_reason: 'failing', failing_since: '2026-11-20T10:00:00.000Z' });
    expect(turnedOff).toMatchObject({ label: 'Turned off', kind: 'danger' });
    expect(turnedOff.detail).toMatch(/turn it on again/);
  });
});

describe('deliveries', () => {
  const now = Date.parse('2026-11-23T10:00:00.000Z');
  const failedAttempt = { at: '2026-11-23T09:59:55.000Z', response_status: 500, duration_ms: 1234, error: 'the receiver answered HTTP 500' };

  test('pending before the first attempt, retrying after a failed one with the next try', () => {
    expect(deliveryState({ status: 'pending', next_attempt_at: '2026-11-23T10:00:00.000Z', attempts: [] }, now)).toMatchObject({ label: 'Pending' });
    const retrying = deliveryState({ status: 'pending', next_attempt_at: '2026-11-23T10:05:00.000Z', attempts: [failedAttempt] }, now);
    expect(retrying.label).toBe('Retrying');
    expect(retrying.detail).toBe('The last attempt failed. Next try in 5 minutes.');
  });

  test('ended deliveries', () => {
    expect(deliveryState({ status: 'succeeded', next_attempt_at: null, attempts: [failedAttempt] }, now)).toEqual({ label: 'Delivered', kind: 'success' });
    expect(deliveryState({ status: 'failed', next_attempt_at: null, attempts: [failedAttempt] }, now)).toMatchObject({ label: 'Failed', kind: 'danger' });
  });

  test('an attempt names the answer and the time it took, or why no answer came', () => {
    expect(attemptText({ at: '', response_status: 204, duration_ms: 85, error: null })).toBe('HTTP 204 in 85 ms');
    expect(attemptText(failedAttempt)).toBe('HTTP 500 in 1,234 ms');
    expect(attemptText({ at: '', response_status: 302, duration_ms: 9, error: 'the receiver answered with a redirect' })).toBe('HTTP 302 in 9 ms (a redirect, which webhooks do not follow)');
    expect(attemptText({ at: '', response_status: null, duration_ms: 10_000, error: 'no answer within 10 s' })).toBe('No answer after 10,000 ms: no answer within 10 s');
  });
});
