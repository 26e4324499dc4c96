import { Type, type Static } from 'typebox';
import { Id } from '../http/params.js';
import { WORKSPACE_ROLES } from '../memberships/contract.js';
import { REVIEW_APPROVALS_MAX, REVIEW_APPROVALS_MIN, WORKSPACE_NAME_MAX_LENGTH } from './contract.js';
import { EMAIL_MAX_LENGTH } from '../users/schema.js';

export { REVIEW_APPROVALS_MAX, REVIEW_APPROVALS_MIN, WORKSPACE_NAME_MAX_LENGTH } from './contract.js';

const Role = Type.Enum(WORKSPACE_ROLES);
const Name = Type.String({ minLength: 1, maxLength: WORKSPACE_NAME_MAX_LENGTH });

export const ReviewPolicySchema = Type.Object(
  {
    required: Type.Boolean({ description: 'Whether changes to sites go through change requests: editors and admins cannot change a site directly (403 review_required); owners can, recorded as bypassing review' }),
    approvals: Type.Integer({ minimum: REVIEW_APPROVALS_MIN, maximum: REVIEW_APPROVALS_MAX, description: 'Approvals a change request needs before it is applied, while review is required' }),
  },
  { additionalProperties: false },
);
export type ReviewPolicy = Static<typeof ReviewPolicySchema>;

export const WorkspaceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: Type.Enum(WORKSPACE_ROLES, { description: "The caller's role in the workspace" }),
  personal: Type.Boolean({ description: "Whether this is the caller's own personal workspace, made with the account" }),
  require_two_factor: Type.Boolean({
    description: 'Whether members need two-factor authentication (TOTP or a passkey) to reach its sites, members and settings; owners set it (PATCH)',
  }),
  review: ReviewPolicySchema,
  created_at: Type.String({ format: 'date-time' }),
});
export type WorkspaceJson = Static<typeof WorkspaceSchema>;

export const WorkspaceEnvelope = Type.Object({ workspace: WorkspaceSchema });
export const WorkspaceList = Type.Object({ workspaces: Type.Array(WorkspaceSchema) });

export const MemberSchema = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }),
  role: Role,
  joined_at: Type.String({ format: 'date-time' }),
});
export type MemberJson = Static<typeof MemberSchema>;
export const MemberEnvelope = Type.Object({ member: MemberSchema });
export const MemberList = Type.Object({ members: Type.Array(MemberSchema) });

export const WorkspaceCreateBody = Type.Object({ name: Name }, { additionalProperties: false });
export const WorkspaceUpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    require_two_factor: Type.Optional(
      Type.Boolean({ description: 'Require two-factor authentication of every member. Turning it on needs it on your own account first (409 two_factor_setup_required), and mails the members who lack it' }),
    ),
    review: Type.Optional(
      Type.Object(
        {
          required: Type.Optional(ReviewPolicySchema.properties.required),
          approvals: Type.Optional(ReviewPolicySchema.properties.approvals),
        },
        { additionalProperties: false, description: 'The review policy (admins and owners); a field left out keeps its value' },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1, description: 'What to change: the name and the two-factor requirement (owners), the review policy (admins and owners); a field left out keeps its value' },
);
export const MemberUpdateBody = Type.Object({ role: Role }, { additionalProperties: false });

export const WorkspaceParams = Type.Object({ id: Id });
export const MemberParams = Type.Object({ id: Id, user_id: Id });

export const InvitationSchema = Type.Object({
  id: Type.String(),
  email: Type.String({ description: 'The invited address, normalised; only the account with this address may accept' }),
  role: Type.Enum(WORKSPACE_ROLES, { description: 'The role the invited person joins with' }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type InvitationJson = Static<typeof InvitationSchema>;
export const InvitationEnvelope = Type.Object({ invitation: InvitationSchema });
export const InvitationList = Type.Object({ invitations: Type.Array(InvitationSchema) });
export const InvitationCreateBody = Type.Object({ email: Type.String({ maxLength: EMAIL_MAX_LENGTH }), role: Role }, { additionalProperties: false });
export const InvitationParams = Type.Object({ id: Id, invitation_id: Id });
export const InvitationAcceptBody = Type.Object({ token: Type.String({ maxLength: 200 }) }, { additionalProperties: false });
