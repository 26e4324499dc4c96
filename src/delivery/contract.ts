/**
 * The public key's contract: its shape (defined beside the generator, src/lib/public-keys.ts) and
 * how long a replaced key keeps answering. The dashboard and the embed script (web/embed/embed.ts)
 * read these; nothing here reaches beyond the import-free shape.
 */
export { PUBLIC_KEY_BODY_LENGTH, PUBLIC_KEY_LENGTH, PUBLIC_KEY_PATTERN, PUBLIC_KEY_PREFIX } from '../lib/public-key-shape.js';
/** How long a replaced key keeps answering, so that pages still carrying it can be updated. */
export const PREVIOUS_KEY_OVERLAP_MS = 24 * 60 * 60 * 1000;
