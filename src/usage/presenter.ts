import type { SiteUsageTotals, UsageSeriesRow } from './queries.js';
import type { SiteUsageJson, WorkspaceUsageJson } from './schema.js';

/** The buckets of a span, `count` of `unitMs` from `firstMs`: the stored ones, and zeros for the rest, so a chart has no gaps. */
export function seriesToJson(rows: readonly UsageSeriesRow[], firstMs: number, count: number, unitMs: number): SiteUsageJson['series'] {
  const stored = new Map(rows.map((row) => [Date.parse(row.at), row]));
  const series: SiteUsageJson['series'] = [];
  for (let i = 0; i < count; i++) {
    const at = firstMs + i * unitMs;
    const row = stored.get(at);
    series.push({
      at: new Date(at).toISOString(),
      loads: Number(row?.loads ?? 0),
      not_modified: Number(row?.not_modified ?? 0),
      streams_opened: Number(row?.streams_opened ?? 0),
      peak_streams: Number(row?.peak_streams ?? 0),
    });
  }
  return series;
}

/** Every site at a glance; `loads_by_day` has a figure for each of the `days` UTC days from `firstDayMs`, zero where nothing was stored. */
export function workspaceUsageToJson(siteIds: readonly string[], totals: ReadonlyMap<string, SiteUsageTotals>, live: ReadonlyMap<string, number>, firstDayMs: number, days: number): WorkspaceUsageJson {
  const dayKeys = Array.from({ length: days }, (_, index) => new Date(firstDayMs + index * DAY_MS).toISOString());
  return {
    sites: siteIds.map((siteId) => {
      const site = totals.get(siteId);
      return {
        site_id: siteId,
        loads_24h: site?.loads24h ?? 0,
        loads_7d: site?.loads7d ?? 0,
        loads_by_day: dayKeys.map((day) => site?.loadsByDay.get(day) ?? 0),
        last_loaded_at: site?.lastLoadedAt ?? null,
        live_streams: live.get(siteId) ?? 0,
      };
    }),
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;
