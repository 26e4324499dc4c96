/**
 * A site's publishable key is "spk_" + 24 base62 characters (about 143 bits). It is not a secret:
 * it is written into every page that embeds the site's configuration. No imports: the generator
 * beside it and the public path's contract (src/delivery/contract.ts, which the dashboard and the
 * embed script read) both take the shape from here.
 */
export const PUBLIC_KEY_PREFIX = 'spk_';
export const PUBLIC_KEY_BODY_LENGTH = 24;
export const PUBLIC_KEY_LENGTH = PUBLIC_KEY_PREFIX.length + PUBLIC_KEY_BODY_LENGTH;
/** The shape as a JSON-schema (and RegExp) pattern. */
export const PUBLIC_KEY_PATTERN = `^${PUBLIC_KEY_PREFIX}[0-9A-Za-z]{${PUBLIC_KEY_BODY_LENGTH}}$`;
