import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, type Site } from '../api';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Loading } from '../components/Loading';
import { NewSiteDialog } from '../components/NewSiteDialog';
import { PartnerStatusBadge } from '../components/PartnerStatusBadge';
import { formatDateTime, formatRelative } from '../format';
import { Link, navigate } from '../router';
import { useTitle } from '../useTitle';

interface SitePage {
  sites: Site[];
  next_cursor: string | null;
}

type ListState = { kind: 'loading' } | { kind: 'failed'; error: unknown } | { kind: 'loaded'; sites: Site[]; nextCursor: string | null };

export function SitesPage() {
  useTitle('Sites');
  const [state, setState] = useState<ListState>({ kind: 'loading' });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Site>();
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const load = useCallback(async () => {
    setState({ kind: 'loading' });
    try {
      const { data } = await api.get<SitePage>('/api/v1/sites');
      setState({ kind: 'loaded', sites: data.sites, nextCursor: data.next_cursor });
    } catch (error) {
      setState({ kind: 'failed', error });
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function loadMore(cursor: string) {
    setLoadingMore(true);
    setMoreError(undefined);
    try {
      const { data } = await api.get<SitePage>(`/api/v1/sites?cursor=${encodeURIComponent(cursor)}`);
      setState((current) => {
        if (current.kind !== 'loaded') return current;
        // A site deleted meanwhile cannot appear twice, but one listed twice must not either.
        const known = new Set(current.sites.map((site) => site.id));
        return { kind: 'loaded', sites: [...current.sites, ...data.sites.filter((site) => !known.has(site.id))], nextCursor: data.next_cursor };
      });
    } catch (error) {
      setMoreError(errorMessage(error));
    } finally {
      setLoadingMore(false);
    }
  }

  async function confirmDelete() {
    if (deleting === undefined) return;
    setDeleteBusy(true);
    setDeleteError(undefined);
    try {
      await api.delete(`/api/v1/sites/${encodeURIComponent(deleting.id)}`);
      const gone = deleting;
      setState((current) => (current.kind === 'loaded' ? { ...current, sites: current.sites.filter((site) => site.id !== gone.id) } : current));
      setNotice(`Deleted ${gone.name}.`);
      setDeleting(undefined);
    } catch (error) {
      setDeleteError(errorMessage(error));
    } finally {
      setDeleteBusy(false);
    }
  }

  return (
    <>
      <header className="page-header">
        <div>
          <h1>Sites</h1>
          <p>Each site holds its assistant, widget, portal and partner settings.</p>
        </div>
        <Button variant="primary" onClick={() => setCreating(true)}>
          New site
        </Button>
      </header>

      {notice !== undefined && <Alert kind="success">{notice}</Alert>}

      {state.kind === 'loading' && <Loading label="Loading your sites…" />}

      {state.kind === 'failed' && (
        <Alert kind="error" title="Your sites could not be loaded">
          <p>{errorMessage(state.error)}</p>
          <Button onClick={() => void load()}>Try again</Button>
        </Alert>
      )}

      {state.kind === 'loaded' && state.sites.length === 0 && (
        <section className="card empty">
          <h2>No sites yet — create your first</h2>
          <p>A site holds the settings of one help centre or assistant: AI, e-mail, widget, portal, branding and more.</p>
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create your first site
          </Button>
        </section>
      )}

      {state.kind === 'loaded' && state.sites.length > 0 && (
        <section className="card" aria-label="Your sites">
          <ul className="list site-list">
            {state.sites.map((site) => (
              <SiteRow key={site.id} site={site} onDelete={() => {
                setDeleteError(undefined);
                setDeleting(site);
              }} />
            ))}
          </ul>
          {state.nextCursor !== null && (
            <div className="site-list-more">
              {moreError !== undefined && <Alert kind="error">{moreError}</Alert>}
              <Button onClick={() => state.nextCursor !== null && void loadMore(state.nextCursor)} busy={loadingMore}>
                Load more
              </Button>
            </div>
          )}
        </section>
      )}

      <NewSiteDialog open={creating} onClose={() => setCreating(false)} onCreated={(site) => navigate(`/sites/${encodeURIComponent(site.id)}`)} />

      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete ${deleting?.name ?? 'this site'}?`}
        confirmLabel="Delete site"
        danger
        busy={deleteBusy}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => void confirmDelete()}
      >
        <p>
          <strong>{deleting?.name}</strong> and all its settings, the partner integration included, are removed for good. This cannot be undone.
        </p>
        {deleteError !== undefined && <Alert kind="error">{deleteError}</Alert>}
      </ConfirmDialog>
    </>
  );
}

function SiteRow({ site, onDelete }: { site: Site; onDelete: () => void }) {
  return (
    <li className="site-row">
      <span className="swatch site-swatch" style={{ backgroundColor: site.color }} aria-hidden="true" />
      <div className="list-main">
        <Link to={`/sites/${encodeURIComponent(site.id)}`} className="site-name">
          {site.name}
        </Link>
        <span className="muted small">
          Updated{' '}
          <time dateTime={site.updated_at} title={formatDateTime(site.updated_at)}>
            {formatRelative(site.updated_at)}
          </time>
        </span>
      </div>
      <PartnerStatusBadge partner={site.partner_settings} />
      <Button variant="ghost" onClick={onDelete} aria-label={`Delete ${site.name}`}>
        Delete
      </Button>
    </li>
  );
}
