import { Type, type Static } from 'typebox';
import { PartnerSettingsInput } from '../sites/schema.js';
import { CHECK_CATEGORY, CHECK_HISTORY_LENGTH, MAX_TOOL_NAMES, PARTNER_NAME_MAX_LENGTH } from './contract.js';

// The plain values are defined in contract.ts, where the dashboard can import them without TypeBox.
export { CHECK_CATEGORY, CHECK_HISTORY_LENGTH, type CheckCategory, MAX_TOOL_NAMES, PARTNER_NAME_MAX_LENGTH } from './contract.js';

const CheckCategorySchema = Type.Enum(Object.values(CHECK_CATEGORY), {
  description: 'ok, or what kind of failure: unauthorized, forbidden, not_found, timeout, unreachable, tls, blocked, protocol_error, http_error',
});

/** One connection check as the API shows it. */
export const PartnerCheckSchema = Type.Object({
  at: Type.String({ format: 'date-time', description: 'When the check finished' }),
  status: Type.Enum(['ok', 'error']),
  category: CheckCategorySchema,
  message: Type.String({ description: 'Our own sentence: what answered when ok, what failed otherwise (last_error’s text). Never the partner’s words.' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  protocol_version: Type.Union([Type.String(), Type.Null()], { description: 'The MCP protocol version in use; null when the check did not get that far or mcp_url is empty' }),
  server: Type.Union([Type.Object({ name: Type.String(), version: Type.String() }), Type.Null()], {
    description: 'The MCP server’s own name and version (serverInfo); null when it did not say or the check did not get that far',
  }),
  tool_count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Every tool the server listed; null when the tools were not listed' }),
  tools: Type.Array(Type.String(), { description: `The first ${MAX_TOOL_NAMES} tool names, each at most ${PARTNER_NAME_MAX_LENGTH} characters` }),
});
export type PartnerCheckJson = Static<typeof PartnerCheckSchema>;

export const PartnerCheckList = Type.Object({
  checks: Type.Array(PartnerCheckSchema, { description: `Newest first, at most ${CHECK_HISTORY_LENGTH}` }),
});
export type PartnerCheckListJson = Static<typeof PartnerCheckList>;

/** The body of POST …/partner/test: partner_settings as PUT takes it, merged over the saved ones. */
export const PartnerTestBody = Type.Object({ partner_settings: PartnerSettingsInput }, { additionalProperties: false });
export type PartnerTestBodyJson = Static<typeof PartnerTestBody>;

export const PartnerTestResult = Type.Object({ check: PartnerCheckSchema });
export type PartnerTestResultJson = Static<typeof PartnerTestResult>;
