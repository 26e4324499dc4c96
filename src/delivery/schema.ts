import { Type, type Static } from 'typebox';
import { CHECKED_BY_ROUTE } from '../http/params.js';
import { PUBLIC_KEY_PATTERN } from './contract.js';

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
  public_key: Type.String({ maxLength: 100, [CHECKED_BY_ROUTE]: true, description: `The site's public key: spk_ followed by 24 letters and digits (${PUBLIC_KEY_PATTERN})` }),
});

/** The public path takes no query parameters: one URL per site keeps every HTTP cache in front of it to one entry. */
export const NoQuery = Type.Object({}, { additionalProperties: false });
export const PreviewQuery = Type.Object(
  {
    preview: Type.Optional(
      Type.String({ maxLength: 100, description: "A change request's preview token: the configuration as the request would leave it, Cache-Control: no-store; 404 once the request has ended" }),
    ),
  },
  { additionalProperties: false },
);

/** What the dashboard's Install section shows of a site: its key, the snippet, and where it was fetched from. */
export const SiteInstallSchema = Type.Object({
  public_key: Type.String({ description: 'The key pages fetch the configuration with' }),
  previous_key: Type.Union(
    [Type.Object({ public_key: Type.String(), expires_at: Type.String({ format: 'date-time', description: 'When it stops answering' }) }), Type.Null()],
    { description: 'The key the last rotation replaced, while it still answers; null otherwise' },
  ),
  script_url: Type.String({ description: '{PUBLIC_URL}/embed.js' }),
  config_url: Type.String({ description: 'The public configuration, for clients without the script' }),
  snippet: Type.String({ description: 'The script tag to put on a page' }),
  fetched_from: Type.Array(
    Type.Object({
      origin: Type.String({ description: "The page's origin, as its request's Origin (or Referer) named it" }),
      last_seen_at: Type.String({ format: 'date-time', description: 'When a request from it was last answered, to within a few minutes' }),
    }),
    { description: 'The origins the configuration was fetched from lately, most recent first (at most 20)' },
  ),
});
export type SiteInstallJson = Static<typeof SiteInstallSchema>;
export const SiteInstallEnvelope = Type.Object({ install: SiteInstallSchema });
