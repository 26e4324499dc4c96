import { Type, type Static } from 'typebox';
import { AUDIT_VIA_TYPES } from '../audit/contract.js';
import { AppError, type FieldError, validationError } from '../errors.js';
import { describedId, Id, VersionCursor, VersionNumber } from '../http/params.js';
import {
  AUTH_TYPES,
  COLOR_PATTERN,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SITE_LIST_SORT,
  MAX_PAGE_SIZE,
  NAME_MAX_LENGTH,
  type PartnerEditableField,
  SETTINGS_FIELDS,
  SETTINGS_MAX_BYTES,
  SITE_LIST_FIELDS,
  SITE_LIST_SORTS,
  SITE_SEARCH_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './contract.js';
import { SITE_ERRORS } from './errors.js';

// The plain values are defined in contract.ts, where the dashboard can import them without TypeBox.
export {
  AUTH_TYPES,
  type AuthType,
  COLOR_PATTERN,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SITE_LIST_SORT,
  MAX_PAGE_SIZE,
  NAME_MAX_LENGTH,
  PARTNER_EDITABLE_FIELDS,
  type PartnerEditableField,
  SETTINGS_FIELDS,
  SETTINGS_MAX_BYTES,
  type SettingsField,
  SITE_LIST_FIELDS,
  SITE_LIST_SORTS,
  SITE_SEARCH_MAX_LENGTH,
  type SiteListFields,
  type SiteListSort,
  URL_MAX_LENGTH,
} from './contract.js';

const ShortText = Type.String({ maxLength: 200 });
const TagList = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 });
const AuthTypeSchema = Type.Enum(AUTH_TYPES);
const Ignored = Type.Unknown({ description: 'Set by the server; accepted and ignored, so a GET body can be sent back' });

/** partner_settings as PUT accepts it: every field optional, merged field by field. */
export const PartnerSettingsInput = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    base_url: Type.Optional(Type.String({ maxLength: URL_MAX_LENGTH, description: '"" or an absolute http(s) URL' })),
    mcp_url: Type.Optional(Type.String({ maxLength: URL_MAX_LENGTH, description: '"" or an absolute http(s) URL' })),
    project_id: Type.Optional(ShortText),
    auth_type: Type.Optional(AuthTypeSchema),
    access_token: Type.Optional(
      Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], {
        description: 'Write-only. Left out keeps the stored token; a non-empty string replaces it; "" or null clears it.',
      }),
    ),
    access_token_configured: Type.Optional(Ignored),
    read_enabled: Type.Optional(Type.Boolean()),
    write_enabled: Type.Optional(Type.Boolean()),
    collections: Type.Optional(TagList),
    widget_project_id: Type.Optional(ShortText),
    widget_search_sources: Type.Optional(TagList),
    last_status: Type.Optional(Ignored),
    last_error: Type.Optional(Ignored),
    last_checked_at: Type.Optional(Ignored),
  },
  { additionalProperties: false },
);

const siteInputFields = {
  id: Type.Optional(Ignored),
  workspace_id: Type.Optional(Ignored),
  public_key: Type.Optional(Ignored),
  created_at: Type.Optional(Ignored),
  updated_at: Type.Optional(Ignored),
  color: Type.Optional(Type.String({ pattern: COLOR_PATTERN, description: '#rgb or #rrggbb' })),
  ai_settings: Type.Optional(Type.String()),
  email_settings: Type.Optional(Type.String()),
  widget: Type.Optional(Type.String()),
  portal: Type.Optional(Type.String()),
  branding: Type.Optional(Type.String()),
  public_theme: Type.Optional(Type.String()),
  knowledge_sources: Type.Optional(Type.String()),
  partner_settings: Type.Optional(PartnerSettingsInput),
};

const Name = Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH });

export const SiteUpdateBody = Type.Object({ name: Type.Optional(Name), ...siteInputFields }, { additionalProperties: false });
export const SiteCreateBody = Type.Object(
  {
    name: Name,
    ...siteInputFields,
    workspace_id: Type.Optional(
      Type.String({ maxLength: 64, description: 'The workspace to create the site in (editor or above); your personal workspace when left out' }),
    ),
  },
  { additionalProperties: false },
);
/** The body of PUT /api/v1/sites/{id}. */
export type SiteUpdate = Static<typeof SiteUpdateBody>;
export type SiteCreate = Static<typeof SiteCreateBody>;
export type PartnerSettingsUpdate = Static<typeof PartnerSettingsInput>;

export const PartnerSettingsSchema = Type.Object({
  enabled: Type.Boolean(),
  base_url: Type.String(),
  mcp_url: Type.String(),
  project_id: Type.String(),
  auth_type: AuthTypeSchema,
  access_token_configured: Type.Boolean(),
  read_enabled: Type.Boolean(),
  write_enabled: Type.Boolean(),
  collections: Type.Array(Type.String()),
  widget_project_id: Type.String(),
  widget_search_sources: Type.Array(Type.String()),
  last_status: Type.String({ description: '"unchecked", "ok" or "error"' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_checked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type PartnerSettings = Static<typeof PartnerSettingsSchema>;
/** The partner fields a person sets, as GET shows them. */
export type PartnerDraft = Pick<PartnerSettings, PartnerEditableField>;

export const SiteSchema = Type.Object({
  id: Type.String(),
  workspace_id: Type.String({ description: 'The workspace the site belongs to' }),
  name: Type.String(),
  color: Type.String(),
  ai_settings: Type.String(),
  email_settings: Type.String(),
  widget: Type.String(),
  portal: Type.String(),
  branding: Type.String(),
  public_theme: Type.String(),
  knowledge_sources: Type.String(),
  partner_settings: PartnerSettingsSchema,
  public_key: Type.String({
    description: 'The publishable key visitors\' browsers fetch the public configuration with (GET /public/v1/sites/{public_key}); not a secret. POST …/public-key/rotate replaces it',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type SiteJson = Static<typeof SiteSchema>;
/**
 * A site as a version recorded it. The publishable key is not part of a site's history (rotating
 * it is no change of configuration, and versions recorded before keys existed have none).
 */
export const SiteVersionSiteSchema = Type.Omit(SiteSchema, ['public_key']);
export type SiteVersionSiteJson = Static<typeof SiteVersionSiteSchema>;

export const SiteEnvelope = Type.Object({ site: SiteSchema });

export type SiteEnvelopeJson = Static<typeof SiteEnvelope>;

const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as ?cursor= for the next page, with the same sort and q; null on the last page',
});

export const SiteList = Type.Object({
  sites: Type.Array(SiteSchema),
  next_cursor: NextCursor,
});
export type SiteListJson = Static<typeof SiteList>;

/** A site as the list screen shows it (`fields=summary`): no settings text, only what is set. */
export const SiteSummarySchema = Type.Object({
  id: Type.String(),
  workspace_id: Type.String(),
  name: Type.String(),
  color: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  configured: Type.Array(Type.Enum(SETTINGS_FIELDS), {
    description: 'The settings groups that hold something: not blank, and not an empty JSON object or array',
  }),
  partner: Type.Object({
    enabled: Type.Boolean(),
    access_token_configured: Type.Boolean(),
    last_status: Type.String({ description: '"unchecked", "ok" or "error"' }),
    last_checked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
});
export type SiteSummaryJson = Static<typeof SiteSummarySchema>;

export const SiteSummaryList = Type.Object({
  sites: Type.Array(SiteSummarySchema),
  next_cursor: NextCursor,
  total: Type.Integer({ minimum: 0, description: 'How many sites match q, on every page' }),
});
export type SiteSummaryListJson = Static<typeof SiteSummaryList>;

/** GET /api/v1/sites answers the full sites, or their summaries with `fields=summary`. */
export const SiteListAnswer = Type.Union([SiteList, SiteSummaryList], {
  description: 'Full sites by default; with fields=summary, summaries and the total',
});

export const SiteListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
    cursor: Type.Optional(Type.String({ maxLength: 2048, description: 'next_cursor of the page before' })),
    q: Type.Optional(
      Type.String({
        maxLength: SITE_SEARCH_MAX_LENGTH,
        description: 'Only sites whose name contains this text, ignoring case; % and _ are plain characters',
      }),
    ),
    sort: Type.Optional(
      Type.Enum(SITE_LIST_SORTS, {
        default: DEFAULT_SITE_LIST_SORT,
        description: 'A column, ascending, or descending with a leading -; ties in id order. Names sort ignoring case',
      }),
    ),
    fields: Type.Optional(Type.Enum(SITE_LIST_FIELDS, { description: 'summary: the light representation for a list screen, with total' })),
    workspace_id: Type.Optional(describedId("Only this workspace's sites (you must be a member); every workspace you are in when left out")),
  },
  { additionalProperties: false },
);

export const SiteParams = Type.Object({ id: Id });

export const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1024 })) });

// The token's entry first: the other entry's before and after are optional, so it would match the token's too.
const SiteChangeSchema = Type.Union([
  Type.Object({ path: Type.Literal('/partner_settings/access_token'), change: Type.Enum(['set', 'replaced', 'cleared'], { description: 'How the token changed; never its value' }) }),
  Type.Object({
    path: Type.String({ description: 'JSON Pointer of the setting: /name, /widget/greeting (a setting inside a group that holds a JSON object), /branding (a group that does not), /partner_settings/base_url' }),
    before: Type.Optional(Type.Unknown({ description: 'Left out when the setting was not there (added)' })),
    after: Type.Optional(Type.Unknown({ description: 'Left out when the setting was removed' })),
  }),
]);

export const SiteVersionSchema = Type.Object({
  version: Type.Integer({ minimum: 1 }),
  created_at: Type.String({ format: 'date-time' }),
  actor: Type.Union([Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }), Type.Null()], { description: 'Who made the change, as they were named then' }),
  via: Type.Object({
    type: Type.Enum(AUDIT_VIA_TYPES),
    access_token: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
    change_request: Type.Optional(Type.Object({ id: Type.String(), title: Type.String() }, { description: 'The change request this version applied' })),
    review_bypassed: Type.Optional(Type.Boolean({ description: 'true when an owner changed the site directly while its workspace required review' })),
  }),
  changes: Type.Array(SiteChangeSchema),
  restored_from: Type.Union([Type.Integer(), Type.Null()], { description: 'The version this one restored, when it is a restore' }),
  site: Type.Optional(SiteVersionSiteSchema),
});
export type SiteVersionJson = Static<typeof SiteVersionSchema>;
export const SiteVersionList = Type.Object({ versions: Type.Array(SiteVersionSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export const SiteVersionEnvelope = Type.Object({ version: SiteVersionSchema });
export const SiteVersionParams = Type.Object({ id: Id, version: VersionNumber });
export const SiteVersionListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
    cursor: Type.Optional(VersionCursor),
  },
  { additionalProperties: false },
);
export const SiteRestoreAnswer = Type.Object({
  site: SiteSchema,
  restored_from: Type.Integer(),
  partner_access_token: Type.Enum(['kept', 'cleared'], {
    description: 'A version never holds the partner access token: the current one is kept, unless the restored URLs point at other origins than the token was saved for, which clears it',
  }),
});

const Actor = Type.Union([Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }), Type.Null()], { description: 'Who did it, as they were named then; null for the command line' });
export const TrashEntrySchema = Type.Object({
  site: SiteSchema,
  deleted_at: Type.String({ format: 'date-time' }),
  deleted_by: Actor,
  purge_at: Type.String({ format: 'date-time', description: 'When retention deletes it for good, unless it is restored first' }),
});
export type TrashEntryJson = Static<typeof TrashEntrySchema>;
export const TrashList = Type.Object({
  sites: Type.Array(TrashEntrySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as ?cursor= for the next page; null on the last page' }),
});
export const TrashListQuery = Type.Object(
  {
    workspace_id: Type.Optional(describedId("Only this workspace's trash; every workspace you are in when left out")),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the page before' })),
  },
  { additionalProperties: false },
);
export const TrashParams = Type.Object({ site_id: Id });

// The rules a body's JSON schema cannot say, checked by the service before anything is written.

function isHttpUrl(value: string): boolean {
  if (value !== value.trim()) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Rules the JSON schema cannot say. Size problems are 413 (the content is too large), the rest
 * 400; both name every offending field. Nothing is written when either is raised.
 */
export function checkSiteInput(input: SiteUpdate): void {
  const invalid: FieldError[] = [];
  const tooLarge: FieldError[] = [];
  if (input.name !== undefined && input.name.trim() === '') invalid.push({ path: '/name', message: 'must not be blank' });
  for (const field of SETTINGS_FIELDS) {
    const value = input[field];
    if (value !== undefined && Buffer.byteLength(value, 'utf8') > SETTINGS_MAX_BYTES) {
      tooLarge.push({ path: `/${field}`, message: `must be at most ${SETTINGS_MAX_BYTES} bytes` });
    }
  }
  const partner = input.partner_settings;
  for (const field of ['base_url', 'mcp_url'] as const) {
    const value = partner?.[field];
    if (value !== undefined && value !== '' && !isHttpUrl(value)) {
      invalid.push({ path: `/partner_settings/${field}`, message: 'must be empty or an absolute http(s) URL' });
    }
  }
  if (tooLarge.length > 0) {
    throw new AppError(413, SITE_ERRORS.FIELD_TOO_LARGE, tooLarge.map((error) => `${error.path}: ${error.message}`).join('; '), { errors: tooLarge });
  }
  if (invalid.length > 0) throw validationError(invalid);
}
