import { Type, type Static } from 'typebox';
import { PUBLIC_KEY_PATTERN } from './public-key.js';

/** A public settings group: the JSON object its text holds, or null when the text is empty or not a JSON object. */
const PublicGroup = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

/** What visitors' browsers are given of a site: its name, colour and public groups, never anything else. */
export const PublicConfigSchema = Type.Object({
  site: Type.Object({
    name: Type.String(),
    color: Type.String(),
    widget: PublicGroup,
    portal: PublicGroup,
    branding: PublicGroup,
    public_theme: PublicGroup,
  }),
  version: Type.Integer({ minimum: 1, description: "The site's version; the answer's ETag and its event stream's event id" }),
  updated_at: Type.String({ format: 'date-time', description: 'When the configuration last changed' }),
});
export type PublicConfigJson = Static<typeof PublicConfigSchema>;

/**
 * The key's shape is the route's own check (isPublicKey), so that a malformed key is answered with
 * its own code, invalid_public_key, as cacheably as an unknown one; the description documents it.
 */
export const PublicKeyParams = Type.Object({
  public_key: Type.String({ maxLength: 100, description: `The site's public key: spk_ followed by 24 letters and digits (${PUBLIC_KEY_PATTERN})` }),
});

/** The public path takes no query parameters: one URL per site keeps every HTTP cache in front of it to one entry. */
export const NoQuery = Type.Object({}, { additionalProperties: false });
