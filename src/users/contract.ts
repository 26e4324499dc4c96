/** The user API's plain limits. No imports: the dashboard's forms read them from here. */

/** Characters of an e-mail address (RFC 5321's path limit). */
export const EMAIL_MAX_LENGTH = 254;
/** Characters of a person's name. */
export const NAME_MAX_LENGTH = 200;
