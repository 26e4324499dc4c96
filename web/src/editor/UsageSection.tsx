import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { errorMessage } from '../api/errors';
import type { UsageGranularity } from '../api/usage';
import { LoadFailed } from '../components/LoadFailed';
import { formatDateTime, formatRelative } from '../format';
import { siteUsageQuery } from '../queries';
import './usage.css';

interface Bucket {
  at: string;
  loads: number;
  not_modified: number;
  streams_opened: number;
  peak_streams: number;
}

/** The share of answers that were revalidations (304), as a percentage; a dash when nothing came. */
export function notModifiedShare(loads: number, notModified: number): string {
  const answers = loads + notModified;
  return answers === 0 ? '—' : `${Math.round((notModified / answers) * 100)}%`;
}

function cssColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/** Loads and revalidations per bucket, drawn by uPlot; the table below says the same for screen readers. */
function UsageChart({ series, granularity }: { series: readonly Bucket[]; granularity: UsageGranularity }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const text = cssColor('--text', '#14171c');
    const grid = cssColor('--border', '#d0d4dc');
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 280),
      height: 220,
      series: [
        {},
        { label: 'Loads (200)', stroke: cssColor('--accent', '#4f46e5'), width: 2, fill: 'transparent' },
        { label: 'Revalidations (304)', stroke: cssColor('--muted', '#5d6675'), width: 2, dash: [6, 4] },
      ],
      axes: [
        { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid } },
        { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid } },
      ],
      scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, Math.max(max, 1)] } },
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
    };
    const data: uPlot.AlignedData = [series.map((bucket) => Date.parse(bucket.at) / 1000), series.map((bucket) => bucket.loads), series.map((bucket) => bucket.not_modified)];
    const plot = new uPlot(options, data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 280), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, granularity]);
  // The chart is a picture of the table below: screen readers are given the table.
  return <div ref={container} className="usage-chart" aria-hidden="true" data-testid="usage-chart" data-loads={series.map((bucket) => bucket.loads).join(',')} />;
}

/**
 * The Usage section: what reached the site's public path, per hour (the last 24) or day (the last
 * 30), kept current while open. Counted by each app server and written every 30 s; with an HTTP
 * cache in front, only what reaches the app (docs/deployment.md, "Usage of the public path").
 */
export function UsageSection({ siteId }: { siteId: string }) {
  const [granularity, setGranularity] = useState<UsageGranularity>('hour');
  const usage = useQuery(siteUsageQuery(siteId, granularity));

  if (usage.isPending) {
    return (
      <p className="hint" role="status">
        Loading…
      </p>
    );
  }
  if (usage.isError) return <LoadFailed title="Usage could not be loaded" message={errorMessage(usage.error)} error={usage.error} onRetry={() => void usage.refetch()} />;
  const { series, origins, live_streams: live } = usage.data;
  const loads = series.reduce((sum, bucket) => sum + bucket.loads, 0);
  const notModified = series.reduce((sum, bucket) => sum + bucket.not_modified, 0);
  const streams = series.reduce((sum, bucket) => sum + bucket.streams_opened, 0);
  const peak = series.reduce((most, bucket) => Math.max(most, bucket.peak_streams), 0);
  const span = granularity === 'hour' ? 'the last 24 hours' : 'the last 30 days';
  const bucketLabel = (at: string) => (granularity === 'hour' ? formatDateTime(at) : new Date(at).toLocaleDateString(undefined, { timeZone: 'UTC', dateStyle: 'medium' }));

  return (
    <div className="usage-section">
      <section className="card" aria-labelledby="usage-summary-title">
        <div className="card-header">
          <h2 id="usage-summary-title">Loads</h2>
          <div role="group" aria-label="Buckets" className="usage-granularity">
            <button type="button" className="button button-ghost" aria-pressed={granularity === 'hour'} onClick={() => setGranularity('hour')}>
              By hour
            </button>
            <button type="button" className="button button-ghost" aria-pressed={granularity === 'day'} onClick={() => setGranularity('day')}>
              By day
            </button>
          </div>
        </div>
        <dl className="usage-figures">
          <div>
            <dt>Visitors now</dt>
            <dd data-testid="usage-live">{live}</dd>
          </div>
          <div>
            <dt>Loads, {span}</dt>
            <dd data-testid="usage-loads">{loads}</dd>
          </div>
          <div>
            <dt>Answered 304</dt>
            <dd>{notModifiedShare(loads, notModified)}</dd>
          </div>
          <div>
            <dt>Streams opened</dt>
            <dd>{streams}</dd>
          </div>
          <div>
            <dt>Most streams at once</dt>
            <dd>{peak}</dd>
          </div>
        </dl>
        <UsageChart series={series} granularity={granularity} />
        <details className="usage-table">
          <summary>The same as a table</summary>
          <table>
            <caption className="visually-hidden">Loads per {granularity}, {span}</caption>
            <thead>
              <tr>
                <th scope="col">{granularity === 'hour' ? 'Hour' : 'Day (UTC)'}</th>
                <th scope="col">Loads</th>
                <th scope="col">304</th>
                <th scope="col">Streams opened</th>
                <th scope="col">Most at once</th>
              </tr>
            </thead>
            <tbody>
              {series.map((bucket) => (
                <tr key={bucket.at}>
                  <th scope="row">{bucketLabel(bucket.at)}</th>
                  <td>{bucket.loads}</td>
                  <td>{bucket.not_modified}</td>
                  <td>{bucket.streams_opened}</td>
                  <td>{bucket.peak_streams}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
        <p className="muted small">Counted by each app server and written every 30 seconds. With an HTTP cache in front, only what reaches Siteward is counted.</p>
      </section>
      <section className="card" aria-labelledby="usage-origins-title">
        <h2 id="usage-origins-title">Pages it was loaded from</h2>
        {origins.length === 0 ? (
          <p className="muted">No page has loaded it in {span}.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Origin</th>
                <th scope="col">Loads</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {origins.map((origin) => (
                <tr key={origin.origin}>
                  <th scope="row">{origin.origin}</th>
                  <td>{origin.loads}</td>
                  <td title={formatDateTime(origin.last_seen)}>{formatRelative(origin.last_seen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
