// The signed-in account: profile, e-mail, password, sessions, recent authentication, two-factor
// authentication, passkeys and the account's own security events. One function per call.
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { client, dataOf, quietClient } from './client';
import { ApiError } from './errors';
import type { RequestJson } from './types';
import { asPlainJson } from './webauthn';

export interface Account {
  user: Awaited<ReturnType<typeof readAccount>>['user'];
  /** Until when the sign-in counts as recent (changes to sign-in methods need no password until then). */
  recent_authentication_until: string | null;
  /** An instance administrator: the dashboard shows them the Admin area. */
  instance_admin: boolean;
}

async function readAccount(signal?: AbortSignal) {
  return dataOf(quietClient.GET('/api/v1/me', { signal }));
}

/** The signed-in account, or null: a 401 here is the answer (signed out), not a session to renew. */
export async function fetchAccount(signal?: AbortSignal): Promise<Account | null> {
  try {
    return await readAccount(signal);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export const renameAccount = async (name: string) => (await dataOf(client.PATCH('/api/v1/me', { body: { name } }))).user;
export const deleteAccount = () => dataOf(client.DELETE('/api/v1/me'));
export const resendVerificationEmail = async () => (await dataOf(client.POST('/auth/verify-email/resend'))).detail;

export const fetchPendingEmailChange = async (signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/me/email', { signal }))).pending_email_change;
export const requestEmailChange = async (email: string) => (await dataOf(client.POST('/api/v1/me/email', { body: { email } }))).pending_email_change;
export const withdrawEmailChange = () => dataOf(client.DELETE('/api/v1/me/email'));

export const changePassword = (body: RequestJson<'/api/v1/me/password', 'post'>) => dataOf(client.POST('/api/v1/me/password', { body }));

export const fetchSessions = async (signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/me/sessions', { signal }))).sessions;
export const revokeSession = (id: string) => dataOf(client.DELETE('/api/v1/me/sessions/{id}', { params: { path: { id } } }));
export const revokeEverySession = () => dataOf(client.DELETE('/api/v1/me/sessions'));

export const reauthenticateWithPassword = (password: string, otp?: string) => dataOf(client.POST('/api/v1/me/reauthenticate', { body: otp === undefined ? { password } : { password, otp } }));
export const reauthenticateWithPasskey = (challengeId: string, response: AuthenticationResponseJSON) =>
  dataOf(client.POST('/api/v1/me/reauthenticate', { body: { passkey: { challenge_id: challengeId, response: asPlainJson(response) } } }));
export async function reauthenticationPasskeyOptions() {
  const { options, challenge_id } = await dataOf(client.POST('/api/v1/me/reauthenticate/passkey-options'));
  // Described as an object by the server: @simplewebauthn/server's options, passed on as they are.
  return { options: options as unknown as PublicKeyCredentialRequestOptionsJSON, challenge_id };
}

export const fetchTotpStatus = (signal?: AbortSignal) => dataOf(client.GET('/api/v1/me/totp', { signal }));
export const startTotpSetup = () => dataOf(client.POST('/api/v1/me/totp/setup'));
export const enableTotp = async (code: string) => (await dataOf(client.POST('/api/v1/me/totp/enable', { body: { code } }))).recovery_codes;
export const disableTotp = (code: string) => dataOf(client.DELETE('/api/v1/me/totp', { body: { code } }));
export const regenerateRecoveryCodes = async (code: string) => (await dataOf(client.POST('/api/v1/me/totp/recovery-codes', { body: { code } }))).recovery_codes;

export const fetchPasskeys = async (signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/me/passkeys', { signal }))).passkeys;
// Described as an object by the server: @simplewebauthn/server's options, passed on as they are.
export const passkeyRegistrationOptions = async () => (await dataOf(client.POST('/api/v1/me/passkeys/options'))).options as unknown as PublicKeyCredentialCreationOptionsJSON;
export const addPasskey = async (name: string, response: RegistrationResponseJSON) =>
  (await dataOf(client.POST('/api/v1/me/passkeys', { body: { name, response: asPlainJson(response) } }))).passkey;
export const renamePasskey = (id: string, name: string) => dataOf(client.PATCH('/api/v1/me/passkeys/{id}', { params: { path: { id } }, body: { name } }));
export const removePasskey = (id: string) => dataOf(client.DELETE('/api/v1/me/passkeys/{id}', { params: { path: { id } } }));

export const fetchSecurityEvents = (cursor: string | null, limit: number, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/me/security-events', { params: { query: { limit, ...(cursor === null ? {} : { cursor }) } }, signal }));


export const fetchIdentities = async (signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/me/identities', { signal }))).identities;
export const unlinkIdentity = (provider: string) => dataOf(client.DELETE('/api/v1/me/identities/{provider}', { params: { path: { provider } } }));
/** Where the browser goes to link the provider's account; it comes back linked. */
export const identityLinkUrl = async (provider: string) => (await dataOf(client.POST('/api/v1/me/identities/{provider}/link', { params: { path: { provider } } }))).authorization_url;
