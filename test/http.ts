import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { sessionCookie, STRONG_PASSWORD, type TestApp } from './helpers.js';

/** PUBLIC_URL's origin in the tests: what a browser on Siteward's own pages sends as Origin. */
export const TEST_ORIGIN = 'http://localhost:3000';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
}

/**
 * Requests to a test app over real HTTP on loopback (fetch), as a client or browser sends them:
 * what node:http and Fastify do to a request before and after the routes is part of what is tested.
 */
export class HttpClient {
  constructor(readonly base: string) {}

  async request(method: string, url: string, options: RequestOptions = {}): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(`${this.base}${url}`, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
  }

  /** A web sign-in by password: the headers that carry its session cookie on a write (Origin included). */
  async webSession(email: string, password = STRONG_PASSWORD): Promise<Record<string, string>> {
    const answer = await this.request('POST', '/auth/session', { headers: { origin: TEST_ORIGIN }, json: { email, password } });
    assert.equal(answer.status, 200, answer.text);
    const cookie = sessionCookie(answer.headers.getSetCookie());
    assert.ok(cookie !== undefined, 'the sign-in set no session cookie');
    return { cookie: cookie.header, origin: TEST_ORIGIN };
  }
}

/** Makes the test app listen on a free loopback port and answers a client for it. */
export async function listenOnLoopback(t: TestApp): Promise<HttpClient> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return new HttpClient(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
}

/** Asserts an RFC 9457 problem with this status and code. */
export function assertProblem(answer: HttpAnswer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/, answer.text);
  assert.equal(answer.json<{ code: string }>().code, code, answer.text);
}
