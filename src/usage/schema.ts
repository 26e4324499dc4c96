import { type Static, Type } from 'typebox';

export const UsageGranularitySchema = Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'Buckets of one hour, or of one UTC day' });

export const SiteUsageQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 time: the start of the span (its bucket included); by default the 24 hours (hour) or 30 days (day) ending with the bucket of `to`' })),
    to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 time: the end of the span (its bucket included); by default now' })),
    granularity: Type.Optional(UsageGranularitySchema),
  },
  { additionalProperties: false },
);

export const UsageBucketSchema = Type.Object({
  at: Type.String({ format: 'date-time', description: 'The start of the hour or UTC day' }),
  loads: Type.Integer({ minimum: 0, description: 'Configurations answered in full (200)' }),
  not_modified: Type.Integer({ minimum: 0, description: 'Revalidations answered 304: the browser or a cache already held the version' }),
  streams_opened: Type.Integer({ minimum: 0, description: 'Event streams opened' }),
  peak_streams: Type.Integer({ minimum: 0, description: 'The most event streams open at once (with several app servers, the sum of each one’s most)' }),
});

export const UsageOriginSchema = Type.Object({
  origin: Type.String({ description: "The page's origin, as its request's Origin (or Referer) named it" }),
  loads: Type.Integer({ minimum: 0 }),
  last_seen: Type.String({ format: 'date-time', description: 'When a load from it was last counted, to within the 30 s between writes' }),
});

export const SiteUsageSchema = Type.Object({
  series: Type.Array(UsageBucketSchema, { description: 'Every bucket of the span, oldest first; a bucket with nothing is all zeros' }),
  origins: Type.Array(UsageOriginSchema, { description: 'The origins loads came from over the span, most loads first (at most 20)' }),
  live_streams: Type.Integer({ minimum: 0, description: 'Event streams open now over every app server (visitors now), at most 15 s old' }),
});
export type SiteUsageJson = Static<typeof SiteUsageSchema>;

export const WorkspaceUsageQuery = Type.Object(
  { workspace_id: Type.Optional(Type.String({ maxLength: 100, description: 'One workspace; by default every workspace of yours' })) },
  { additionalProperties: false },
);

export const SiteUsageSummarySchema = Type.Object({
  site_id: Type.String(),
  loads_24h: Type.Integer({ minimum: 0, description: 'Loads (200) in the last 24 hours, by whole hours' }),
  loads_7d: Type.Integer({ minimum: 0, description: 'Loads (200) in the last 7 days, by whole hours' }),
  loads_by_day: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 7, maxItems: 7, description: 'Loads (200) of each of the last 7 UTC days, oldest first, today last: the sites list’s sparkline' }),
  last_loaded_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a configuration was last answered (200 or 304), to within 30 s; null when never in the kept days' }),
  live_streams: Type.Integer({ minimum: 0, description: 'Event streams open now over every app server' }),
});

export const WorkspaceUsageSchema = Type.Object({ sites: Type.Array(SiteUsageSummarySchema, { description: 'Every live site of the workspace(s)' }) });
export type WorkspaceUsageJson = Static<typeof WorkspaceUsageSchema>;
