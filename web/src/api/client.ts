// The one way the dashboard talks to the server: openapi-fetch, typed by the types generated from
// the server's OpenAPI document (schema.d.ts, written by the build), so every path, parameter, body
// and answer is the server's own. Same-origin, with the session cookie, never cached.
//
// Its middleware keeps the person at their work: a change refused for want of a recent sign-in
// opens the confirmation dialog, a request refused because the session ended opens the sign-in
// dialog, and once they have done that the request goes out again. `answer` and `dataOf` turn
// every failure into an ApiError (errors.ts).
import createClient, { type Middleware } from 'openapi-fetch';
import { AUTH_ERRORS } from '@server/auth/errors';
import { type ApiError, isSessionEnded, networkError, problemError } from './errors';
import type { paths } from './schema';

/**
 * Asks the person to confirm who they are; resolves true once the server has taken it, false when
 * they gave up. Registered by the ReauthenticationProvider, so every screen gets the dialog without
 * knowing about it.
 */
export type ReauthenticationPrompt = () => Promise<boolean>;
let reauthenticationPrompt: ReauthenticationPrompt | undefined;

export function setReauthenticationPrompt(prompt: ReauthenticationPrompt | undefined): void {
  reauthenticationPrompt = prompt;
}

/**
 * Asks the person to sign in again after their session ended (expired, or signed out from another
 * device); resolves true once a new session exists. Registered by the SignInAgainProvider, so a
 * screen with unsaved work keeps it and the refused request goes out again.
 */
export type SignInPrompt = () => Promise<boolean>;
let signInPrompt: SignInPrompt | undefined;

export function setSignInPrompt(prompt: SignInPrompt | undefined): void {
  signInPrompt = prompt;
}

/** The problem an answer carries, read from a copy so the answer itself stays unread. */
async function problemOf(response: Response): Promise<ApiError | undefined> {
  if (response.ok) return undefined;
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return problemError(response, body);
}

/** Copies of the requests in flight, by openapi-fetch's request id, to send again after a dialog. */
const inFlight = new Map<string, Request>();

/** Failures to reach the server become ApiErrors; a request the screen cancelled stays an AbortError. */
const networkErrors: Middleware = {
  onError({ error, request, id }) {
    inFlight.delete(id);
    if (request.signal.aborted) return error instanceof Error ? error : new Error(String(error));
    return networkError();
  },
};

/**
 * Sends a prepared request with its body as text. Handed the Request itself, the browser would
 * stream its body, which developer tools (and tests watching the network) cannot show.
 */
async function send(request: Request): Promise<Response> {
  const body = request.body === null ? undefined : await request.text();
  return fetch(request.url, { method: request.method, headers: request.headers, body, credentials: request.credentials, cache: request.cache, redirect: request.redirect, signal: request.signal });
}

async function sendAgain(request: Request): Promise<Response> {
  try {
    return await send(request.clone());
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw networkError();
  }
}

/** The two dialogs that let a refused request go out again once the person has answered. */
const promptsAndRetry: Middleware = {
  onRequest({ request, id }) {
    inFlight.set(id, request.clone());
  },
  async onResponse({ response, id, schemaPath }) {
    const sent = inFlight.get(id);
    inFlight.delete(id);
    if (sent === undefined) return undefined;
    let current = response;
    let reauthenticated = false;
    for (;;) {
      const problem = await problemOf(current);
      if (problem === undefined) return current;
      const reauthenticate = reauthenticationPrompt;
      if (problem.code === AUTH_ERRORS.REAUTHENTICATION_REQUIRED && reauthenticate !== undefined && !reauthenticated) {
        if (!(await reauthenticate())) return current;
        reauthenticated = true;
        current = await sendAgain(sent);
        continue;
      }
      const signIn = signInPrompt;
      // The sign-in endpoints answer 401 for wrong credentials: that is theirs to show.
      if (isSessionEnded(problem) && !schemaPath.startsWith('/auth/') && signIn !== undefined) {
        if (!(await signIn())) return current;
        current = await sendAgain(sent);
        continue;
      }
      return current;
    }
  },
};

const options = { baseUrl: '', credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' }, fetch: send } as const;

/** Every call of the dashboard goes through this client (the files beside this one, one function per call). */
export const client = createClient<paths>(options);
client.use(networkErrors, promptsAndRetry);

/**
 * The same without the dialogs, for the calls whose 401 is the answer itself (asking who is
 * signed in, the sites list's early start before that is known).
 */
export const quietClient = createClient<paths>(options);
quietClient.use(networkErrors);

/** What openapi-fetch answers: the parsed body on 2xx, the parsed error otherwise. */
interface FetchAnswer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/** The answer's body and the response (for its headers, e.g. the ETag); any other status throws an ApiError. */
export async function answer<Data>(pending: Promise<FetchAnswer<Data>>): Promise<{ data: Data; response: Response }> {
  const { data, error, response } = await pending;
  if (!response.ok) throw problemError(response, error);
  // openapi-fetch leaves `data` undefined only for bodiless answers (204), whose type says so.
  return { data: data as Data, response };
}

/** The answer's body; any other status throws an ApiError. */
export async function dataOf<Data>(pending: Promise<FetchAnswer<Data>>): Promise<Data> {
  return (await answer(pending)).data;
}
