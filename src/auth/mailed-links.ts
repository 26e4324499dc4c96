/**
 * Why a mailed link was refused (`link.refused`): never issued or voided since (`unknown`), `used`,
 * `expired`, `withdrawn` (an invitation), of another kind than the page it was posted to
 * (`wrong_purpose`), or for another address than the signed-in caller's (`email_mismatch`).
 */
export type LinkRefusal = 'unknown' | 'used' | 'expired' | 'withdrawn' | 'wrong_purpose' | 'email_mismatch';

/** What a refused link was: a sign-in link, an address verification, a change of address, an invitation. */
export type MailedLink = 'magic_link' | 'email_verification' | 'email_change' | 'invitation';
