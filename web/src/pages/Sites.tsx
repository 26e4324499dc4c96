import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Suspense, useEffect, useId, useRef, useState } from 'react';
import { errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { isTwoFactorRequired, TwoFactorRequiredNotice } from '../components/TwoFactorRequiredNotice';
import { formatDateTime, formatRelative } from '../format';
import { loadOnFirstUse } from '../loadOnFirstUse';
import { Link, navigate, pathOf, queryOf, useLocation, useLocationState } from '../router';
import type { SiteSummary } from '../api/types';
import { DEFAULT_SITE_SORT, isSiteSort, SITE_LIST_PAGE_SIZE, siteListQueryFrom, type SiteSort } from '../siteList';
import { isForSomethingElse, rowAfterKey } from '../shortcuts';
import { useTitle } from '../useTitle';
import { can, ROLE_LABELS, roleWithArticle } from '../workspaceAccess';
import { type Workspace } from '../workspaces';
import { siteListQuery, useWorkspaces, workspaceUsageQuery } from '../queries';
import { type SiteGlance, SiteUsageGlance } from '../components/SiteUsageGlance';
import '../editor/usage.css';
import { type SettingsField, SITE_SEARCH_MAX_LENGTH } from '@server/sites/contract';

// Not needed to show the list: loaded when someone creates a site, or has none yet.
const NewSiteDialog = loadOnFirstUse(() => import('../components/NewSiteDialog').then((module) => module.NewSiteDialog));
const FirstRunChecklist = loadOnFirstUse(() => import('../editor/FirstRunChecklist').then((module) => module.FirstRunChecklist));
// Only where a workspace reviews changes: its queue, "Waiting for review".
const ReviewQueues = loadOnFirstUse(() => import('../review/ReviewQueue').then((module) => module.ReviewQueues));

/** Typing pauses this long before the search goes out: one request per word, not per key. */
const SEARCH_DELAY_MS = 300;

const SORT_LABELS: Record<SiteSort, string> = {
  '-updated_at': 'Last updated',
  updated_at: 'Least recently updated',
  name: 'Name, A to Z',
  '-name': 'Name, Z to A',
  '-created_at': 'Newest',
  created_at: 'Oldest',
};
const SORT_MENU: SiteSort[] = ['-updated_at', 'name', '-name', '-created_at', 'created_at'];

const GROUP_LABELS: Record<SettingsField, string> = {
  ai_settings: 'AI',
  email_settings: 'E-mail',
  widget: 'Widget',
  portal: 'Portal',
  branding: 'Branding',
  public_theme: 'Theme',
  knowledge_sources: 'Knowledge',
};

/** The cursors of the pages before this one, kept with the history entry so Previous can go back. */
interface PagingState {
  previous: string[];
}

function previousCursors(state: unknown): string[] {
  if (typeof state !== 'object' || state === null || !('previous' in state) || !Array.isArray(state.previous)) return [];
  return state.previous.filter((cursor): cursor is string => typeof cursor === 'string');
}

interface ListAddress {
  workspaceId: string | null;
  q: string;
  sort: SiteSort;
  cursor: string | null;
}

function listAddress(path: string, { workspaceId, q, sort, cursor }: ListAddress): string {
  const parameters = new URLSearchParams();
  if (workspaceId !== null) parameters.set('workspace', workspaceId);
  if (q !== '') parameters.set('q', q);
  if (sort !== DEFAULT_SITE_SORT) parameters.set('sort', sort);
  if (cursor !== null) parameters.set('cursor', cursor);
  const search = parameters.toString();
  return search === '' ? path : `${path}?${search}`;
}

export function SitesPage() {
  useTitle('Sites');
  const location = useLocation();
  const locationState = useLocationState();
  const path = pathOf(location);
  const parameters = queryOf(location);
  const query = siteListQueryFrom(parameters);
  const { workspaceId, q, sort, cursor } = query;
  const previous = previousCursors(locationState);
  const [creating, setCreating] = useState(false);
  const [searchText, setSearchText] = useState(q);
  const searchId = useId();
  const sortId = useId();
  const workspaceSelectId = useId();
  const workspaces = useWorkspaces();
  const workspaceList = workspaces.data ?? [];
  const selected = workspaceList.find((workspace) => workspace.id === workspaceId);
  // Until the workspaces are known, creating is offered: the dialog itself waits for them.
  const createRefusal = selected !== undefined && !can(selected.role, 'site.create') ? `You are ${roleWithArticle(selected.role)} in ${selected.name}: you can open its sites but not create them.` : undefined;
  // With one workspace there is nothing to switch between or to tell rows apart by.
  const showSwitcher = workspaceList.length > 1 || workspaceId !== null;
  const reviewed = workspaceList.filter((workspace) => workspace.review.required && (workspaceId === null || workspace.id === workspaceId));

  // Each row's last load and visitors now, for the workspace shown (or all of them).
  const usage = useQuery(workspaceUsageQuery(workspaceId));
  const glances = new Map((usage.data?.sites ?? []).map((row) => [row.site_id, row]));

  const list = useQuery({
    ...siteListQuery(query),
    // The rows stay while the next page or search loads, instead of flashing a skeleton.
    placeholderData: keepPreviousData,
  });

  const searchBox = useRef<HTMLInputElement>(null);
  const siteList = useRef<HTMLUListElement>(null);
  // "/" puts the cursor in the search box, as on many lists; j and k move focus down and up the
  // rows, onto each site's link, so Enter opens it and a screen reader reads the row's name (not
  // while typing in a field).
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (isForSomethingElse(event)) return;
      if (event.key === '/') {
        event.preventDefault();
        searchBox.current?.focus();
        return;
      }
      const links = [...(siteList.current?.querySelectorAll<HTMLAnchorElement>('a.site-name') ?? [])];
      const next = rowAfterKey(event.key, links.findIndex((link) => link === document.activeElement), links.length);
      if (next === undefined) return;
      event.preventDefault();
      links[next]?.focus();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  // The command palette's "Create a site" leads here with ?new=site: the dialog opens.
  const wantsNewSite = parameters.get('new') === 'site';
  useEffect(() => {
    if (!wantsNewSite) return;
    setCreating(true);
    navigate(listAddress(path, { workspaceId, q, sort, cursor }), { replace: true });
  }, [wantsNewSite, path, workspaceId, q, sort, cursor]);

  // The address changed under the box (back button, a link): show what is searched. The box keeps
  // what is being typed (a trailing space before the next word) when it already says the same.
  useEffect(() => setSearchText((typed) => (typed.trim() === q ? typed : q)), [q]);

  useEffect(() => {
    const wanted = searchText.trim();
    if (wanted === q) return;
    const timer = window.setTimeout(() => navigate(listAddress(path, { workspaceId, q: wanted, sort, cursor: null }), { replace: true }), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [searchText, q, sort, path, workspaceId]);

  function goToPage(nextCursor: string | null, nextPrevious: string[]) {
    const state: PagingState = { previous: nextPrevious };
    navigate(listAddress(path, { workspaceId, q, sort, cursor: nextCursor }), { state });
  }

  function chooseWorkspace(next: string | null) {
    navigate(listAddress(path, { workspaceId: next, q, sort, cursor: null }), { replace: true });
  }

  const page = list.data;
  // The rows are drawn with what goes above them (the queues waiting for review, which depend on
  // the workspaces), never before it: nothing then pushes drawn rows down (layout shift).
  const workspacesKnown = workspaces.data !== undefined || workspaces.isError;
  const firstIndex = previous.length * SITE_LIST_PAGE_SIZE;
  const onFirstPage = cursor === null;
  const rangeKnown = onFirstPage || previous.length > 0;

  return (
    <>
      <header className="page-header">
        <div>
          <h1>Sites</h1>
          <p>Each site holds its assistant, widget, portal and partner settings.</p>
        </div>
        <div className="page-actions">
          <Link to="/trash" className="button button-ghost">
            Trash
          </Link>
          {createRefusal === undefined ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New site
            </Button>
          ) : (
            <p className="muted small create-refusal">{createRefusal}</p>
          )}
        </div>
      </header>

      {!(page !== undefined && page.total === 0 && q === '' && onFirstPage && !showSwitcher) && (
        <div className="list-toolbar" role="search">
          {showSwitcher && (
            <div className="field list-workspace">
              <label htmlFor={workspaceSelectId}>Workspace</label>
              <select id={workspaceSelectId} value={workspaceId ?? ''} onChange={(event) => chooseWorkspace(event.target.value === '' ? null : event.target.value)}>
                <option value="">All workspaces</option>
                {workspaceList.map((workspace) => (
                  <option key={workspace.id} value={workspace.id}>
                    {workspace.name}
                  </option>
                ))}
                {/* The address's choice stays selected while the names load, rather than showing "All". */}
                {workspaceId !== null && selected === undefined && <option value={workspaceId}>{workspaces.data === undefined ? 'Loading…' : 'Unknown workspace'}</option>}
              </select>
            </div>
          )}
          <div className="field list-search">
            <label htmlFor={searchId}>
              Search sites{' '}
              <span className="shortcut-hint" aria-hidden="true">
                <kbd>/</kbd>
              </span>
            </label>
            <input id={searchId} ref={searchBox} aria-keyshortcuts="/" type="search" value={searchText} onChange={(event) => setSearchText(event.target.value)} placeholder="Name" autoComplete="off" maxLength={SITE_SEARCH_MAX_LENGTH} />
          </div>
          <div className="field list-sort">
            <label htmlFor={sortId}>Sort by</label>
            <select id={sortId} value={sort} onChange={(event) => isSiteSort(event.target.value) && navigate(listAddress(path, { workspaceId, q, sort: event.target.value, cursor: null }), { replace: true })}>
              {SORT_MENU.map((value) => (
                <option key={value} value={value}>
                  {SORT_LABELS[value]}
                </option>
              ))}
            </select>
          </div>
        </div>
      )}

      {(list.isPending || (page !== undefined && page.sites.length > 0 && !workspacesKnown)) && <SiteListSkeleton />}

      {list.isError && page === undefined && isTwoFactorRequired(list.error) && <TwoFactorRequiredNotice />}
      {list.isError && page === undefined && !isTwoFactorRequired(list.error) && (
        <Alert kind="error" title="Your sites could not be loaded">
          <p>{errorMessage(list.error)}</p>
          <div className="row">
            <Button onClick={() => void list.refetch()}>Try again</Button>
            {!onFirstPage && <Button onClick={() => goToPage(null, [])}>Go to the first page</Button>}
            {workspaceId !== null && <Button onClick={() => chooseWorkspace(null)}>Show every workspace</Button>}
          </div>
        </Alert>
      )}

      {page !== undefined && page.total === 0 && q === '' && onFirstPage && workspaceId === null && (
        <section className="card empty">
          <h2>No sites yet — create your first</h2>
          <p>A site holds the settings of one help centre or assistant: AI, e-mail, widget, portal, branding and more.</p>
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create your first site
          </Button>
        </section>
      )}
      {page !== undefined && page.total === 0 && q === '' && onFirstPage && workspaceId === null && (
        <Suspense fallback={null}>
          <FirstRunChecklist />
        </Suspense>
      )}

      {page !== undefined && page.total === 0 && q === '' && onFirstPage && workspaceId !== null && (
        <section className="card empty">
          <h2>No sites in {selected?.name ?? 'this workspace'} yet</h2>
          {createRefusal === undefined ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              Create a site here
            </Button>
          ) : (
            <p>Its editors and admins can create sites here.</p>
          )}
        </section>
      )}

      {page !== undefined && page.sites.length === 0 && q !== '' && (
        <section className="card empty" aria-live="polite">
          <h2>No sites match “{q}”</h2>
          <p>Try another name, or clear the search to see every site.</p>
          <Button onClick={() => setSearchText('')}>Clear search</Button>
        </section>
      )}

      {workspacesKnown && reviewed.length > 0 && (
        <Suspense fallback={reviewed.map((workspace) => <ReviewQueueSkeleton key={workspace.id} />)}>
          <ReviewQueues workspaces={reviewed} />
        </Suspense>
      )}

      {page !== undefined && page.sites.length > 0 && workspacesKnown && (
        <section className="card site-list-card" aria-label="Your sites" aria-busy={list.isFetching || undefined}>
          {list.isError && <Alert kind="error">{errorMessage(list.error)}</Alert>}
          <p className="muted small site-list-count" role="status">
            {rangeKnown
              ? `${firstIndex + 1}–${firstIndex + page.sites.length} of ${page.total} ${page.total === 1 ? 'site' : 'sites'}`
              : `${page.total} ${page.total === 1 ? 'site' : 'sites'}`}
            {q !== '' && ` matching “${q}”`}
          </p>
          <ul className="list site-list" ref={siteList}>
            {page.sites.map((site) => (
              <SiteRow
                key={site.id}
                site={site}
                workspace={workspaceList.find((workspace) => workspace.id === site.workspace_id)}
                showWorkspace={workspaceId === null && workspaceList.length > 1}
                glance={glances.get(site.id)}
              />
            ))}
          </ul>
          {(!onFirstPage || page.next_cursor !== null) && (
            <nav className="pager" aria-label="Pages">
              <Button
                disabled={onFirstPage}
                onClick={() => goToPage(previous.length > 0 ? previous[previous.length - 1] || null : null, previous.slice(0, -1))}
              >
                Previous
              </Button>
              <Button disabled={page.next_cursor === null} onClick={() => page.next_cursor !== null && goToPage(page.next_cursor, [...previous, cursor ?? ''])}>
                Next
              </Button>
            </nav>
          )}
        </section>
      )}

      {creating && (
        <Suspense fallback={null}>
          <NewSiteDialog open workspaces={workspaces.data} selectedWorkspaceId={workspaceId} onClose={() => setCreating(false)} onCreated={(site) => navigate(`/sites/${encodeURIComponent(site.id)}`, { state: { created: true } })} />
        </Suspense>
      )}
    </>
  );
}

function SiteRow({ site, workspace, showWorkspace, glance }: { site: SiteSummary; workspace: Workspace | undefined; showWorkspace: boolean; glance: SiteGlance | undefined }) {
  const configured = site.configured.map((group) => GROUP_LABELS[group]);
  return (
    <li className="site-row">
      <span className="swatch site-swatch" style={{ backgroundColor: site.color }} aria-hidden="true" />
      <div className="list-main">
        <Link to={`/sites/${encodeURIComponent(site.id)}`} className="site-name">
          {site.name}
        </Link>
        {showWorkspace && workspace !== undefined && (
          <span className="small site-workspace">
            <span className="visually-hidden">Workspace: </span>
            {workspace.name}
          </span>
        )}
        <span className="muted small site-configured">{configured.length === 0 ? 'Nothing configured yet' : `Configured: ${configured.join(', ')}`}</span>
      </div>
      {workspace !== undefined && <RoleBadge role={workspace.role} />}
      <PartnerHealth partner={site.partner} />
      <SiteUsageGlance glance={glance} />
      <span className="muted small site-updated">
        Updated{' '}
        <time dateTime={site.updated_at} title={formatDateTime(site.updated_at)}>
          {formatRelative(site.updated_at)}
        </time>
      </span>
    </li>
  );
}

/** The person's role in the site's workspace, where it limits them: an owner may do everything. */
function RoleBadge({ role }: { role: Workspace['role'] }) {
  if (role === 'owner') return null;
  return (
    <span className="badge role-badge">
      <span className="visually-hidden">Your role: </span>
      {ROLE_LABELS[role]}
    </span>
  );
}

/** The integration at a glance: off, or on with its last check's result. */
function PartnerHealth({ partner }: { partner: SiteSummary['partner'] }) {
  const checked = partner.last_checked_at === null || partner.last_checked_at === '' ? undefined : `Last checked ${formatDateTime(partner.last_checked_at)}`;
  if (!partner.enabled) return <span className="badge">Partner disabled</span>;
  if (partner.last_status === 'ok')
    return (
      <span className="badge badge-success" title={checked}>
        Partner OK
      </span>
    );
  if (partner.last_status === 'error')
    return (
      <span className="badge badge-danger" title={checked}>
        Partner error
      </span>
    );
  return <span className="badge badge-accent">Partner not checked</span>;
}

/** A review queue's place while its code arrives: the same height as the queue (review.css). */
function ReviewQueueSkeleton() {
  return (
    <div className="card review-queue" aria-hidden="true">
      <span className="skeleton skeleton-line skeleton-short" />
    </div>
  );
}

/** The list's shape while the first page loads, so the rows do not jump in. */
function SiteListSkeleton() {
  return (
    <section className="card site-list-card" aria-busy="true" aria-label="Your sites">
      <p className="visually-hidden" role="status">
        Loading your sites…
      </p>
      <ul className="list site-list" aria-hidden="true">
        {[0, 1, 2, 3, 4].map((index) => (
          <li key={index} className="site-row skeleton-row">
            <span className="swatch site-swatch skeleton" />
            <div className="list-main">
              <span className="skeleton skeleton-line" />
              <span className="skeleton skeleton-line skeleton-short" />
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
