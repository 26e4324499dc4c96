// Names for the shapes the server answers, taken from the generated types (schema.d.ts), so they
// are the server's own: a field renamed on the server is renamed here by the next build.
import type { paths } from './schema';
import type { PartnerEditableField } from '@server/sites/contract';

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
export type TotpSetup = ResponseJson<'/api/v1/me/totp/setup', 'post'>;
export type SecurityEvent = ResponseJson<'/api/v1/me/security-events', 'get'>['events'][number];
export type AuditEvent = ResponseJson<'/api/v1/workspaces/{id}/audit-log', 'get'>['events'][number];
export type SiteUpdate = RequestJson<'/api/v1/sites/{id}', 'put'>;
export type PartnerSettingsUpdate = NonNullable<SiteUpdate['partner_settings']>;
/** The partner settings a change request may propose (PARTNER_EDITABLE_FIELDS). */
export type PartnerDraft = Pick<PartnerSettings, PartnerEditableField>;
export type SiteVersion = ResponseJson<'/api/v1/sites/{id}/versions', 'get'>['versions'][number];
export type TrashEntry = ResponseJson<'/api/v1/trash', 'get'>['sites'][number];
/** GET /api/v1/sites with fields=summary: the answer that carries the total. */
export type SiteSummaryPage = Extract<ResponseJson<'/api/v1/sites', 'get'>, { total: number }>;
export type SiteSummary = SiteSummaryPage['sites'][number];
export type PartnerCheck = ResponseJson<'/api/v1/sites/{id}/partner/checks', 'get'>['checks'][number];
export type Webhook = ResponseJson<'/api/v1/workspaces/{id}/webhooks', 'get'>['webhooks'][number];
export type WebhookWithSecret = ResponseJson<'/api/v1/workspaces/{id}/webhooks', 'post', 201>['webhook'];
export type WebhookDelivery = ResponseJson<'/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries', 'get'>['deliveries'][number];
