// Names for the shapes the server answers, taken from the generated types (schema.d.ts), so they
// are the server's own: a field renamed on the server is renamed here by the next build.
import type { paths } from './schema';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The JSON body a route answers with the given status. */
export type ResponseJson<Path extends keyof paths, M extends Method, Status extends number = 200> = paths[Path][M] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Json } } };
}
  ? Json
  : never;

/** The JSON body a route takes. */
export type RequestJson<Path extends keyof paths, M extends Method> = paths[Path][M] extends { requestBody?: { content: { 'application/json': infer Json } } } ? Json : never;

export type User = ResponseJson<'/api/v1/me', 'get'>['user'];
export type WebSession = ResponseJson<'/api/v1/me/sessions', 'get'>['sessions'][number];
export type Passkey = ResponseJson<'/api/v1/me/passkeys', 'get'>['passkeys'][number];
export type PendingEmailChange = NonNullable<ResponseJson<'/api/v1/me/email', 'get'>['pending_email_change']>;
export type AccessToken = ResponseJson<'/api/v1/access-tokens', 'get'>['access_tokens'][number];
export type CreatedAccessToken = ResponseJson<'/api/v1/access-tokens', 'post', 201>['access_token'];
export type Site = ResponseJson<'/api/v1/sites/{id}', 'get'>['site'];
export type PartnerSettings = Site['partner_settings'];
export type Workspace = ResponseJson<'/api/v1/workspaces', 'get'>['workspaces'][number];
export type Member = ResponseJson<'/api/v1/workspaces/{id}/members', 'get'>['members'][number];
export type Invitation = ResponseJson<'/api/v1/workspaces/{id}/invitations', 'get'>['invitations'][number];
export type AuthConfig = ResponseJson<'/auth/config', 'get'>;
export type SingleSignOnProvider = AuthConfig['oidc'][number];
export type Identity = ResponseJson<'/api/v1/me/identities', 'get'>['identities'][number];
export type AdminUser = ResponseJson<'/api/v1/admin/users', 'get'>['users'][number];
