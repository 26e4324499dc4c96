/**
 * The site contract's plain values: the settings groups, the limits, the enums and the page sizes.
 * schema.ts builds the TypeBox schemas from these, and the dashboard imports them for its own form
 * checks. No imports, so the dashboard's bundle takes these values and nothing of the server.
 */

/** The settings groups: free text (often JSON), each at most SETTINGS_MAX_BYTES. */
export const SETTINGS_FIELDS = ['ai_settings', 'email_settings', 'widget', 'portal', 'branding', 'public_theme', 'knowledge_sources'] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];

/** UTF-8 bytes of one settings group. */
export const SETTINGS_MAX_BYTES = 64 * 1024;
export const NAME_MAX_LENGTH = 200;
export const URL_MAX_LENGTH = 2048;
/** `#rgb` or `#rrggbb`, either case. A JSON-schema pattern: the dashboard builds a RegExp from it. */
export const COLOR_PATTERN = '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$';
/** How a partner check authenticates: no token, `Authorization: Bearer`, or `Authorization: Token`. */
export const AUTH_TYPES = ['none', 'bearer', 'token'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** The partner fields a person sets; the rest of partner_settings (check results, token flag) is the server's. */
export const PARTNER_EDITABLE_FIELDS = [
  'enabled',
  'base_url',
  'mcp_url',
  'project_id',
  'auth_type',
  'read_enabled',
  'write_enabled',
  'collections',
  'widget_project_id',
  'widget_search_sources',
] as const;
export type PartnerEditableField = (typeof PARTNER_EDITABLE_FIELDS)[number];

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/**
 * The orders GET /api/v1/sites offers: a column, ascending, or descending with a leading `-`.
 * Ties are broken by id in the same direction. `created_at` is the default.
 */
export const SITE_LIST_SORTS = ['created_at', '-created_at', 'name', '-name', 'updated_at', '-updated_at'] as const;
export type SiteListSort = (typeof SITE_LIST_SORTS)[number];
export const DEFAULT_SITE_LIST_SORT: SiteListSort = 'created_at';
/** `fields=` values: `summary` is the light representation for the list screen. */
export const SITE_LIST_FIELDS = ['summary'] as const;
export type SiteListFields = (typeof SITE_LIST_FIELDS)[number];
/** Characters of the `q` search text. */
export const SITE_SEARCH_MAX_LENGTH = 200;
