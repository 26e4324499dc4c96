import { Type, type Static } from 'typebox';
import { describedId, Id } from '../http/params.js';
import { ProblemSchema } from '../http/schema.js';
import { SiteUpdateBody } from '../sites/schema.js';
import {
  CHANGE_REQUEST_COMMENT_MAX_LENGTH,
  CHANGE_REQUEST_DESCRIPTION_MAX_LENGTH,
  CHANGE_REQUEST_STATUSES,
  CHANGE_REQUEST_TITLE_MAX_LENGTH,
  CONFLICT_RESOLUTIONS,
} from './contract.js';

const Person = Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() });
const Title = Type.String({ minLength: 1, maxLength: CHANGE_REQUEST_TITLE_MAX_LENGTH });
const Description = Type.String({ maxLength: CHANGE_REQUEST_DESCRIPTION_MAX_LENGTH });
const Status = Type.Enum(CHANGE_REQUEST_STATUSES);
/** A path both the site and the proposal changed since base_version; a value is left out where the setting is not set. */
const MergeConflictSchema = Type.Object({
  path: Type.String({ description: 'JSON Pointer, as in changes' }),
  base: Type.Optional(Type.Unknown({ description: 'The value at base_version' })),
  current: Type.Optional(Type.Unknown({ description: 'The value now' })),
  proposed: Type.Optional(Type.Unknown({ description: 'The proposed value' })),
});

export const ChangeRequestSchema = Type.Object({
  id: Type.String(),
  site_id: Type.String(),
  workspace_id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  status: Type.Enum(CHANGE_REQUEST_STATUSES, {
    description: 'open: waiting for review; scheduled: due to be applied at scheduled_at; applied; declined; closed (withdrawn); failed (a scheduled apply met a conflict)',
  }),
  author: Type.Union([Person, Type.Null()], { description: 'Who opened it, as they were named then; null once their account is deleted' }),
  base_version: Type.Integer({ minimum: 1, description: 'The version of the site the proposal was made from' }),
  changes: Type.Array(
    Type.Object({
      path: Type.String({ description: 'JSON Pointer, as in the site history: /name, /widget/greeting (a setting inside a group that holds a JSON object), /branding (a group that does not), /partner_settings/base_url' }),
      before: Type.Optional(Type.Unknown({ description: 'The value at base_version; left out when the setting was not there' })),
      after: Type.Optional(Type.Unknown({ description: 'The proposed value; left out when the proposal removes the setting' })),
    }),
  ),
  approvals: Type.Array(Type.Object({ user: Person, at: Type.String({ format: 'date-time' }) })),
  comments: Type.Array(Type.Object({ user: Type.Union([Person, Type.Null()]), at: Type.String({ format: 'date-time' }), body: Type.String() })),
  scheduled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  applied_version: Type.Union([Type.Integer(), Type.Null()], { description: 'The site version the request became' }),
  failure: Type.Union(
    [
      Type.Object({
        code: Type.String(),
        conflicts: Type.Optional(Type.Array(MergeConflictSchema)),
      }),
      Type.Null(),
    ],
    { description: 'Why a scheduled apply failed' },
  ),
  preview_token: Type.Union([Type.String(), Type.Null()], {
    description: 'GET /public/v1/sites/{public_key}?preview={preview_token} shows the configuration as it would be after the change; null once the request has ended',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type ChangeRequestJson = Static<typeof ChangeRequestSchema>;

export const ChangeRequestEnvelope = Type.Object({ change_request: ChangeRequestSchema });
export const ChangeRequestList = Type.Object({ change_requests: Type.Array(ChangeRequestSchema) });

export const ChangeRequestCreateBody = Type.Object(
  {
    title: Title,
    description: Type.Optional(Description),
    changes: Type.Object(SiteUpdateBody.properties, {
      additionalProperties: false,
      description: 'The proposal: a PUT /api/v1/sites/{id} body, validated as PUT validates it. A partner access token cannot be proposed (400 validation_failed)',
    }),
  },
  { additionalProperties: false },
);
export type ChangeRequestCreate = Static<typeof ChangeRequestCreateBody>;

export const ChangeRequestUpdateBody = Type.Object(
  { title: Type.Optional(Title), description: Type.Optional(Description), changes: Type.Optional(SiteUpdateBody) },
  { additionalProperties: false, minProperties: 1, description: 'The author, while open; a field left out keeps its value. Approvals are reset' },
);
export type ChangeRequestUpdate = Static<typeof ChangeRequestUpdateBody>;

export const ChangeRequestApplyBody = Type.Object(
  {
    at: Type.Optional(Type.String({ maxLength: 64, description: 'An ISO 8601 date-time: apply then instead of now (status scheduled); in the future, at most a year ahead' })),
    resolve: Type.Optional(
      Type.Record(Type.String({ maxLength: 1000 }), Type.Enum(CONFLICT_RESOLUTIONS), {
        description: 'Settles conflicting paths (the paths of conflicts, e.g. /widget/greeting): "proposed" keeps the proposal\'s value, "current" keeps the site\'s (the path is left out)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ChangeRequestApply = Static<typeof ChangeRequestApplyBody>;

export const ChangeRequestDeclineBody = Type.Object({ comment: Type.Optional(Type.String({ minLength: 1, maxLength: CHANGE_REQUEST_COMMENT_MAX_LENGTH })) }, { additionalProperties: false });
export const ChangeRequestCommentBody = Type.Object({ body: Type.String({ minLength: 1, maxLength: CHANGE_REQUEST_COMMENT_MAX_LENGTH }) }, { additionalProperties: false });

export const SiteChangeRequestParams = Type.Object({ id: Id });
export const ChangeRequestParams = Type.Object({ id: Id, cr_id: Id });
export const SiteChangeRequestListQuery = Type.Object({ status: Type.Optional(Status) }, { additionalProperties: false });
export const ChangeRequestQueueQuery = Type.Object(
  {
    workspace_id: describedId('The workspace whose queue to list (you must be a member)'),
    status: Type.Optional(Type.Enum(CHANGE_REQUEST_STATUSES, { description: 'Only this status; open and scheduled when left out' })),
  },
  { additionalProperties: false },
);

export const ConflictProblem = Type.Intersect([
  ProblemSchema,
  Type.Object({
    conflicts: Type.Optional(
      Type.Array(MergeConflictSchema, {
        description: 'change_request_conflict: each path the site changed since base_version to another value than the proposal\'s',
      }),
    ),
  }),
]);
