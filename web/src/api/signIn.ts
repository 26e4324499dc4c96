// Signing in and out of the web interface (the session cookie), signing up and sign-in links.
// Their 401s are answers (a wrong password), never a session to renew: the client's sign-in
// dialog leaves /auth/ alone. One function per call.
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { client, dataOf } from './client';
import { asPlainJson } from './webauthn';
import type { RequestJson } from './types';

export const fetchAuthConfig = () => dataOf(client.GET('/auth/config'));
export const signInWithPassword = (body: RequestJson<'/auth/session', 'post'>) => dataOf(client.POST('/auth/session', { body }));
export const finishSecondFactor = async (code: string) => (await dataOf(client.POST('/auth/2fa', { body: { code } }))).user;
export const signOut = () => dataOf(client.POST('/auth/logout'));
export const requestMagicLink = (email: string) => dataOf(client.POST('/auth/magic-link', { body: { email } }));
export const signUp = (body: RequestJson<'/auth/signup', 'post'>) => dataOf(client.POST('/auth/signup', { body }));
export async function passkeySignInOptions() {
  const { options, challenge_id } = await dataOf(client.POST('/auth/passkey/options'));
  // The server describes the options as an object: they are @simplewebauthn/server's, passed on as they are.
  return { options: options as unknown as PublicKeyCredentialRequestOptionsJSON, challenge_id };
}
export const passkeySignIn = async (challengeId: string, response: AuthenticationResponseJSON) =>
  (await dataOf(client.POST('/auth/passkey/verify', { body: { challenge_id: challengeId, response: asPlainJson(response) } }))).user;
