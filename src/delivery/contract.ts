/**
 * The public key's contract: its shape and how long a replaced key keeps answering. No imports:
 * the server's key generator (src/lib/public-keys.ts), the dashboard and the embed script
 * (web/embed/embed.ts) all read these.
 *
 * A site's publishable key is "spk_" + 24 base62 characters (about 143 bits). It is not a secret:
 * it is written into every page that embeds the site's configuration.
 */
export const PUBLIC_KEY_PREFIX = 'spk_';
export const PUBLIC_KEY_BODY_LENGTH = 24;
export const PUBLIC_KEY_LENGTH = PUBLIC_KEY_PREFIX.length + PUBLIC_KEY_BODY_LENGTH;
/** The shape as a JSON-schema (and RegExp) pattern. */
export const PUBLIC_KEY_PATTERN = `^${PUBLIC_KEY_PREFIX}[0-9A-Za-z]{${PUBLIC_KEY_BODY_LENGTH}}$`;
/** How long a replaced key keeps answering, so that pages still carrying it can be updated. */
export const PREVIOUS_KEY_OVERLAP_MS = 24 * 60 * 60 * 1000;
