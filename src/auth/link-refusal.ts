import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { sha256 } from '../lib/crypto.js';
import type { LinkRefusal, MailedLink } from './mailed-links.js';
import { findUserById, type UserRow } from '../users/queries.js';
import { EMAIL_CHANGE_PURPOSE, EMAIL_VERIFICATION_PURPOSE, findOneTimeToken, MAGIC_LINK_PURPOSE } from './queries.js';

/** The one-time-token purposes each link page takes: /verify-email takes changes of address too. */
const PAGE_PURPOSES: Record<'magic_link' | 'email_verification', readonly string[]> = {
  magic_link: [MAGIC_LINK_PURPOSE],
  email_verification: [EMAIL_VERIFICATION_PURPOSE, EMAIL_CHANGE_PURPOSE],
};

function isMailedLink(purpose: string): purpose is MailedLink {
  return purpose === MAGIC_LINK_PURPOSE || purpose === EMAIL_VERIFICATION_PURPOSE || purpose === EMAIL_CHANGE_PURPOSE;
}

/**
 * Why a one-time link posted to `page` was refused, and whose it was: the token is looked up by its
 * hash in whatever state it is in. For the security log only; what the page answers does not depend
 * on it.
 */
export async function whyOneTimeLinkRefused(
  db: Kysely<Database>,
  now: Date,
  page: 'magic_link' | 'email_verification',
  token: string,
): Promise<{ link: MailedLink; reason: LinkRefusal; user: UserRow | null }> {
  // Any text is hashed and looked up: what is not a token of ours finds nothing.
  const row = await findOneTimeToken(db, sha256(token));
  if (row === undefined) return { link: page, reason: 'unknown', user: null };
  const user = (await findUserById(db, row.user_id)) ?? null;
  const link = isMailedLink(row.purpose) ? row.purpose : page;
  let reason: LinkRefusal = 'unknown';
  if (!PAGE_PURPOSES[page].includes(row.purpose)) reason = 'wrong_purpose';
  else if (row.used_at !== null) reason = 'used';
  else if (row.expires_at <= now.toISOString()) reason = 'expired';
  return { link, reason, user };
}
