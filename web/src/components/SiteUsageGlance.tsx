import { formatDateTime, formatRelative } from '../format';

export interface SiteGlance {
  loads_by_day: number[];
  last_loaded_at: string | null;
  live_streams: number;
}

/** A tiny line of the week's loads per day; its figures are in the text beside it. */
export function Sparkline({ values }: { values: readonly number[] }) {
  const most = Math.max(1, ...values);
  const step = values.length > 1 ? 70 / (values.length - 1) : 0;
  const points = values.map((value, index) => `${(index * step).toFixed(1)},${(19 - (value / most) * 18).toFixed(1)}`).join(' ');
  return (
    <svg className="sparkline" viewBox="0 0 70 20" aria-hidden="true" data-testid="sparkline" data-values={values.join(',')}>
      <polyline points={points} />
    </svg>
  );
}

/**
 * A site's row in the sites list at a glance: when it was last loaded, its last 7 days, visitors
 * now. Its space is kept while usage loads, so the row does not move when it arrives.
 */
export function SiteUsageGlance({ glance }: { glance: SiteGlance | undefined }) {
  const loads = glance?.loads_by_day;
  const total = loads?.reduce((sum, value) => sum + value, 0);
  return (
    <span className="site-usage">
      {loads === undefined ? <span className="sparkline" aria-hidden="true" /> : <Sparkline values={loads} />}
      {total !== undefined && <span className="visually-hidden">{total} loads in the last 7 days. </span>}
      <span>
        {glance === undefined ? (
          '\u00a0'
        ) : (
          <>
            Last loaded{' '}
            {glance.last_loaded_at === null ? (
              'never'
            ) : (
              <time dateTime={glance.last_loaded_at} title={formatDateTime(glance.last_loaded_at)}>
                {formatRelative(glance.last_loaded_at)}
              </time>
            )}
            {' · '}
            <span data-testid="visitors-now">{glance.live_streams}</span> visitors now
          </>
        )}
      </span>
    </span>
  );
}
