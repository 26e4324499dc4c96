import { escapeHtml } from '../lib/html.js';
import { page } from './layout.js';

/** What the accept page says about an invitation that can still be accepted. */
export interface InvitationSummary {
  workspaceName: string;
  role: string;
  email: string;
}

function invitationLine(invitation: InvitationSummary): string {
  return `<p>You are invited to join <strong>${escapeHtml(invitation.workspaceName)}</strong> as <strong>${escapeHtml(invitation.role)}</strong>.</p>`;
}

/**
 * GET /invitations/accept, signed in with the invited address: asks for a click. Loading it
 * accepts nothing, so a mail scanner opening the link joins no one.
 */
export function invitationConfirmPage(token: string, invitation: InvitationSummary): string {
  return page(
    'Join a workspace',
    `<h1>Join a workspace</h1>
${invitationLine(invitation)}
<p>You will join as <strong>${escapeHtml(invitation.email)}</strong>.</p>
<form method="post" action="/invitations/accept">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <button type="submit">Join</button>
</form>
<p class="muted">The invitation works once. Nothing happens until you press the button.</p>`,
  );
}

/**
 * Signed out: the way to an account with the invited address, and back here afterwards. The
 * dashboard returns to `next` after signing in or up; so does a sign-in through a provider.
 */
export function invitationSignInPage(token: string, invitation: InvitationSummary, signupOpen: boolean, providers: ReadonlyArray<{ id: string; name: string }> = []): string {
  const next = encodeURIComponent(`/invitations/accept?token=${token}`);
  // The dashboard's sign-in and sign-up forms start with the invited address filled in.
  const withAddress = `next=${next}&email=${encodeURIComponent(invitation.email)}`;
  const signUp = signupOpen
    ? `<p>New to Siteward? <a href="/sign-up?${escapeHtml(withAddress)}">Create an account with ${escapeHtml(invitation.email)}</a>; accepting confirms the address.</p>`
    : '';
  // Links, not forms: starting a sign-in at a provider changes nothing here until it comes back.
  const singleSignOn =
    providers.length === 0
      ? ''
      : `<ul class="providers">
${providers.map((provider) => `  <li><a class="button-link" href="/auth/oidc/${escapeHtml(encodeURIComponent(provider.id))}/start?next=${escapeHtml(next)}">Continue with ${escapeHtml(provider.name)}</a></li>`).join('\n')}
</ul>
`;
  return page(
    'Join a workspace',
    `<h1>Join a workspace</h1>
${invitationLine(invitation)}
<p>The invitation is for <strong>${escapeHtml(invitation.email)}</strong>. Sign in with that address to accept it.</p>
${singleSignOn}<p><a href="/sign-in?${escapeHtml(withAddress)}">Sign in</a></p>
${signUp}`,
  );
}

/** Signed in with another address than the invited one: nothing can be accepted from here. */
export function invitationMismatchPage(invitation: InvitationSummary, signedInAs: string): string {
  return page(
    'Invitation for another address',
    `<h1>This invitation is for another address</h1>
${invitationLine(invitation)}
<p>It is for <strong>${escapeHtml(invitation.email)}</strong>, but you are signed in as <strong>${escapeHtml(signedInAs)}</strong>. Sign out of Siteward, sign in with the invited address, then open the link again.</p>
<p><a href="/">Open Siteward</a></p>`,
  );
}

/** Joined (or a member already): the way on is the workspace's sites in the dashboard. */
export function invitationAcceptedPage(workspace: { id: string; name: string; role: string }, alreadyMember: boolean): string {
  const name = escapeHtml(workspace.name);
  const what = alreadyMember
    ? `You were already a member of <strong>${name}</strong>; your role (${escapeHtml(workspace.role)}) is unchanged.`
    : `You joined <strong>${name}</strong> as <strong>${escapeHtml(workspace.role)}</strong>.`;
  const sites = `/?workspace=${encodeURIComponent(workspace.id)}`;
  return page('Invitation accepted', `<h1>Invitation accepted</h1>\n<p>${what}</p>\n<p><a href="${escapeHtml(sites)}">Open the sites of ${name}</a></p>`);
}

/** An unknown, used, revoked or expired invitation. */
export function invitationInvalidPage(): string {
  return page(
    'Invitation no longer works',
    `<h1>This invitation no longer works</h1>
<p>Invitations work once and expire after 7 days; an administrator may also have withdrawn it. Ask whoever invited you to send a new one.</p>
<p><a href="/">Open Siteward</a></p>`,
  );
}
