// What the dashboard tells a person for each code the API can send. Keyed by the server's own
// union of codes, so a code added on the server does not compile here until it has a sentence.
import type { ErrorCode } from '@server/error-codes';
import { WEBHOOKS_PER_WORKSPACE } from '@server/webhooks/contract';

export const ERROR_MESSAGES: Record<ErrorCode, string> = {
  // The request itself
  validation_failed: 'Some of what was sent is not valid.',
  bad_request: 'Something in what was sent is not right. Check the form and try again.',
  bad_url: 'This address is not valid. Check it, or go back to your sites.',
  malformed_request: 'The request was garbled on the way. Reload the page and try again.',
  invalid_json: 'The request was garbled on the way. Reload the page and try again.',
  empty_body: 'The request arrived empty. Reload the page and try again.',
  bad_content_length: 'The request was cut short on the way. Check your connection and try again.',
  body_too_large: 'This is too large to save: at most 1 MiB in all.',
  unsupported_media_type: 'The request was sent in a form the server does not take. Reload the page and try again.',
  uri_too_long: 'The address is too long.',
  request_timeout: 'The request took too long to arrive. Check your connection and try again.',
  headers_too_large: 'The request was too large. Signing out and in again may help.',
  expectation_failed: 'The request asked for something this server does not offer. Reload the page and try again.',
  route_not_found: 'This part of Siteward is not available. Reload the page; the server may have been updated.',
  database_unavailable: 'The server cannot reach its database right now. Try again in a moment.',
  internal_error: 'Something went wrong on the server. Try again; if it keeps happening, tell your administrator.',
  // Signing in and credentials
  unauthenticated: 'You are not signed in. Sign in again.',
  invalid_token: 'Your sign-in is no longer valid. Sign in again.',
  wrong_scheme: 'This way of signing in does not work here. Sign in again.',
  unsupported_scheme: 'This way of signing in does not work here. Sign in again.',
  invalid_credentials: 'The e-mail address or password is wrong.',
  session_expired: 'Your session has ended. Sign in again.',
  session_not_found: 'That session has already ended.',
  // Single sign-on
  oidc_provider_not_found: 'This sign-in provider is not set up on this server.',
  oidc_provider_unreachable: 'The sign-in provider does not answer right now. Try again in a few minutes, or sign in another way.',
  oidc_state_invalid: 'This sign-in could not be finished here: it was started in another browser, took more than 10 minutes, or was already used. Start again.',
  oidc_cancelled: 'Signing in at the provider was cancelled. Start again when you are ready.',
  oidc_refused: 'The sign-in provider did not accept this sign-in. Start again.',
  oidc_response_invalid: 'The sign-in provider’s answer could not be confirmed, so it was not used. Start again.',
  oidc_email_not_verified: 'Your sign-in provider has not confirmed your e-mail address. Confirm it there, or sign in another way.',
  oidc_identity_conflict: 'This provider account cannot be linked: it belongs to another Siteward account, or yours is linked to another account at this provider.',
  identity_not_found: 'This sign-in provider is not linked to your account.',
  last_sign_in_method: 'This is your last way to sign in. Set a password or add a passkey first.',
  claim_required: 'Finish signing in first: choose whether to keep or reset this account.',
  second_factor_required: 'Finish signing in first: enter the code from your authenticator app.',
  second_factor_not_pending: 'This sign-in has expired. Sign in again.',
  signup_closed: 'Sign-up is closed on this server; ask an administrator for an account.',
  cross_site_request: 'This request did not come from this page. Reload the page and try again.',
  rate_limited: 'Too many attempts. Wait a little and try again.',
  reauthentication_required: 'This change needs you to confirm it’s you. Try again, and enter your password or use a passkey when asked.',
  access_token_not_allowed: 'An access token cannot do this; sign in instead.',
  insufficient_scope: 'The access token used may not do this: it was created without that permission.',
  // Access tokens
  access_token_not_found: 'That access token no longer exists.',
  too_many_access_tokens: 'You have as many access tokens as an account can hold; revoke one first.',
  // The account
  email_taken: 'An account with this e-mail address already exists.',
  email_unchanged: 'This is already your e-mail address.',
  user_not_found: 'This account no longer exists.',
  current_password_invalid: 'This is not your current password.',
  password_invalid: 'That is not your password.',
  ownership_transfer_required: 'You are the only owner of a workspace that other people use. Make one of them an owner (or remove them) first, then delete your account.',
  // Two-factor authentication
  otp_required: 'Enter the code from your authenticator app, or a recovery code.',
  otp_invalid: 'That code is wrong or has already been used.',
  totp_already_enabled: 'Two-factor authentication is already on.',
  totp_not_enabled: 'Two-factor authentication is not on.',
  totp_setup_required: 'Start the two-factor setup again.',
  // Passkeys
  passkey_challenge_invalid: 'This passkey request has expired. Try again.',
  passkey_verification_failed: 'The passkey could not be verified. Try again.',
  passkey_unknown_credential: 'This passkey is not registered to your account here; use another one or your password.',
  passkey_counter_not_increased: 'This passkey looks copied, so it was refused. Sign in another way and remove it if you do not recognise this.',
  passkey_already_registered: 'This passkey is already registered.',
  passkey_not_found: 'That passkey no longer exists.',
  too_many_passkeys: 'You have as many passkeys as an account can hold; remove one first.',
  no_passkeys: 'You have no passkeys; confirm with your password instead.',
  // E-mail verification
  email_not_verified: 'Confirm your e-mail address first: use the link we mailed you, or ask for a new one.',
  email_already_verified: 'Your e-mail address is already confirmed.',
  verification_token_invalid: 'This confirmation link is unknown, used or expired; ask for a new one.',
  claim_not_pending: 'This choice has already been made or has expired. Sign in again.',
  // Sites
  site_not_found: 'This site no longer exists, or is not yours.',
  settings_group_not_found: 'That settings group does not exist; reload the page.',
  precondition_failed: 'The site was changed elsewhere since you opened it. Reload it and apply your change again.',
  field_too_large: 'A field is too large to save.',
  invalid_cursor: 'The list changed its search or order while you were paging. Go back to the first page.',
  version_not_found: 'That version of the site does not exist. Reload the history and choose another.',
  // Partner connection checks
  partner_test_rate_limited: 'Too many connection tests in a short time. Wait a minute and test again.',
  // Workspaces
  workspace_not_found: 'This workspace no longer exists, or you are no longer a member.',
  member_not_found: 'This person is not a member of the workspace (any more).',
  insufficient_role: 'Your role in this workspace does not allow this. Ask an admin or owner.',
  last_owner: 'A workspace needs at least one owner: make someone else an owner first.',
  personal_workspace: 'Your personal workspace stays yours: it cannot be deleted, left or handed over.',
  too_many_workspaces: 'You are in as many workspaces as an account can be; leave or delete one first.',
  already_member: 'Someone with this e-mail address is already a member of the workspace; change their role instead.',
  invitation_not_found: 'That invitation is no longer pending: it was accepted, withdrawn or has expired.',
  invitation_invalid: 'This invitation no longer works: it was used, withdrawn or has expired. Ask for a new one.',
  invitation_email_mismatch: 'This invitation is for another e-mail address. Sign in with the invited address to accept it.',
  two_factor_required: 'This workspace requires two-factor authentication. Turn on an authenticator app or add a passkey under Settings > Security to open it.',
  two_factor_setup_required: 'Turn on two-factor authentication for your own account first (Settings > Security): requiring it of the members would otherwise shut you out too.',
  webhook_not_found: 'This webhook no longer exists: someone deleted it.',
  delivery_not_found: 'This delivery is no longer in the log.',
  webhook_url_refused: 'Siteward does not send to this address.',
  webhook_disabled: 'The webhook is turned off. Turn it on first.',
  too_many_webhooks: `A workspace can have ${WEBHOOKS_PER_WORKSPACE} webhooks; delete one first.`,
  // The public configuration (visitors' browsers, not the dashboard, meet these)
  invalid_public_key: 'This is not a public key: it is spk_ followed by 24 letters and digits.',
  too_many_streams: 'The server is serving as many live connections as it can. Try again shortly.',
  review_required: 'This workspace reviews changes before they go live: propose the change instead of saving it.',
  change_request_not_found: 'That change request does not exist on this site.',
  change_request_conflict: 'The site changed since this request was made. Choose, for each changed setting, which value to keep.',
  approvals_missing: 'This change needs more approvals before it can go live.',
  change_request_not_open: 'This change request has already ended and can no longer change.',
  self_approval: 'You cannot approve your own change; another admin or owner reviews it.',
  not_the_author: 'Only the person who proposed this change can edit it.',
  site_in_trash: 'The site of this change is in the trash. Restore it first.',
  nothing_to_change: 'The proposal leaves the site as it is. Change at least one setting.',
};

/**
 * Codes whose server detail names what exactly is wrong (which field, which rule, which check):
 * there the detail says more than any fixed sentence could.
 */
export const CODES_WITH_SPECIFIC_DETAIL: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['validation_failed', 'field_too_large', 'passkey_verification_failed', 'bad_request', 'webhook_url_refused']);
