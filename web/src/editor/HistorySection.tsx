import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import type { Site } from '../api/types';
import { ApiError, errorMessage } from '../api/errors';
import { useSiteVersions } from '../queries';
import { queryKeys } from '../queryKeys';
import { actorName, viaText } from '../auditText';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { Swatch } from '../components/Swatch';
import { formatDateTime, formatRelative } from '../format';
import { type ChangeLine, changeLines, type SiteVersion, versionGap, versionSummary } from '../historyText';
import { restoreSiteVersion } from '../api/sites';
import { useToasts } from '../toasts';

interface HistorySectionProps {
  siteId: string;
  /** The version the editor holds (its ETag), sent as If-Match with a restore. */
  etag: string | null;
  canRestore: boolean;
  /** Unsaved edits would be lost under a restore: it waits until they are saved or discarded. */
  dirty: boolean;
  onRestored: (site: Site, etag: string | null) => void;
}

/** The site's versions, newest first, each with who, how and what it changed; any earlier one can be restored. */
export function HistorySection({ siteId, etag, canRestore, dirty, onRestored }: HistorySectionProps) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const [restoring, setRestoring] = useState<SiteVersion>();
  const [restored, setRestored] = useState<{ version: number; tokenCleared: boolean }>();
  const [stale, setStale] = useState(false);
  const history = useSiteVersions(siteId);
  const restore = useMutation({
    mutationFn: (version: SiteVersion) => restoreSiteVersion(siteId, version.version, etag),
    onSuccess: (answer, version) => {
      setRestoring(undefined);
      setStale(false);
      setRestored({ version: version.version, tokenCleared: answer.partner_access_token === 'cleared' });
      onRestored(answer.site, answer.etag);
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.versions(siteId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
      // Undo restores the version that was current before, as a new version again.
      const before = newest;
      if (before !== undefined) {
        toasts.show({ message: `Version ${version.version} restored.`, action: { label: 'Undo', run: () => void undo(before, answer.etag) } });
      }
    },
    onError: (error) => {
      setRestoring(undefined);
      // Someone saved after this editor loaded: restoring now would overwrite their change unseen.
      setStale(error instanceof ApiError && error.status === 412);
    },
  });
  const versions = history.data?.pages.flatMap((page) => page.versions) ?? [];
  const newest = versions[0]?.version;

  async function undo(version: number, tag: string | null) {
    try {
      const answer = await restoreSiteVersion(siteId, version, tag);
      setRestored(undefined);
      onRestored(answer.site, answer.etag);
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.versions(siteId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
      toasts.show({ message: `Back to version ${version}, saved as the newest version.` });
    } catch (error) {
      toasts.show({ message: `Not undone: ${errorMessage(error)}` });
    }
  }

  return (
    <section className="card history" aria-labelledby="history-title">
      <div className="card-header">
        <div>
          <h3 id="history-title">Versions</h3>
          <p>Newest first. Restoring a version saves its settings as a new version; the partner access token stays as it is now, unless that version’s partner addresses differ.</p>
        </div>
      </div>
      {/* The toast says it was restored; what needs doing afterwards stays here. */}
      {restored?.tokenCleared === true && (
        <Alert kind="success" title={`Version ${restored.version} restored`}>
          <p>Its settings are saved as the newest version, at the top of this list.</p>
          <p>The partner access token was cleared: it was saved for other partner addresses than this version’s. Enter it again under Integration.</p>
        </Alert>
      )}
      {stale && (
        <Alert kind="warning" title="Someone else saved this site since you opened it">
          <p>Nothing was restored. Reload the page to see their change, then restore again if you still want to.</p>
        </Alert>
      )}
      {restore.isError && !stale && (
        <Alert kind="error" title="The version was not restored">
          <p>{errorMessage(restore.error)}</p>
        </Alert>
      )}
      {history.isError ? (
        <LoadFailed title="The history could not be loaded" message={errorMessage(history.error)} onRetry={() => void history.refetch()} />
      ) : history.data === undefined ? (
        <Loading label="Loading the history…" />
      ) : (
        <>
          <ol className="list history-list" aria-busy={history.isFetchingNextPage || undefined}>
            {versions.map((version, index) => {
              const older = versions[index + 1];
              const gap = older === undefined ? undefined : versionGap(version.version, older.version);
              return (
                <Fragment key={version.version}>
                  <VersionItem version={version} current={version.version === newest} canRestore={canRestore} dirty={dirty} onRestore={() => setRestoring(version)} />
                  {gap !== undefined && <li className="history-gap muted small">{gap}</li>}
                </Fragment>
              );
            })}
          </ol>
          {history.hasNextPage && (
            <Button onClick={() => void history.fetchNextPage()} busy={history.isFetchingNextPage}>
              Show older versions
            </Button>
          )}
        </>
      )}
      <ConfirmDialog
        open={restoring !== undefined}
        title={`Restore version ${restoring?.version ?? ''}?`}
        confirmLabel="Restore this version"
        busy={restore.isPending}
        onCancel={() => setRestoring(undefined)}
        onConfirm={() => {
          if (restoring !== undefined) restore.mutate(restoring);
        }}
      >
        <p>
          The name, colour and settings of version {restoring?.version} become the site’s newest version, live at once. Nothing is lost: the current version stays in
          the history. The partner access token is not part of a version: it stays as it is now, unless this version’s partner addresses differ from the ones it
          was saved for, which clears it.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function VersionItem({ version, current, canRestore, dirty, onRestore }: { version: SiteVersion; current: boolean; canRestore: boolean; dirty: boolean; onRestore: () => void }) {
  const via = viaText(version);
  const lines = version.changes.flatMap(changeLines);
  return (
    <li className="history-version">
      <div className="history-version-head">
        <div className="list-main">
          <strong>
            Version {version.version}
            {current && <span className="badge">Current</span>}
          </strong>
          <span className="muted small">
            {versionSummary(version)} by {actorName(version)}
            {via !== undefined && ` ${via}`} ·{' '}
            <time dateTime={version.created_at} title={formatDateTime(version.created_at)}>
              {formatRelative(version.created_at)}
            </time>
          </span>
        </div>
        {canRestore && !current && (
          <Button onClick={onRestore} disabled={dirty} title={dirty ? 'Save or discard your changes first' : undefined} aria-label={`Restore version ${version.version}`}>
            Restore…
          </Button>
        )}
      </div>
      {lines.length > 0 && (
        <ul className="history-changes" aria-label={`Changes in version ${version.version}`}>
          {lines.map((line, index) => (
            <ChangeItem key={`${line.label}-${index}`} line={line} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function ChangeItem({ line }: { line: ChangeLine }) {
  const [expanded, setExpanded] = useState(false);
  const before = expanded ? (line.full?.before ?? line.before) : line.before;
  const after = expanded ? (line.full?.after ?? line.after) : line.after;
  return (
    <li>
      <span className="history-label">{line.label}</span>{' '}
      {line.kind === 'token' && <span>{after}</span>}
      {line.kind === 'formatting' && <span className="muted">only the formatting changed</span>}
      {line.kind === 'added' && (
        <>
          <span className="muted">added</span> <Swatch colour={line.swatch?.after} />
          <ins>{after}</ins>
        </>
      )}
      {line.kind === 'removed' && (
        <>
          <span className="muted">removed</span> <Swatch colour={line.swatch?.before} />
          <del>{before}</del>
        </>
      )}
      {line.kind === 'changed' && (
        <>
          <Swatch colour={line.swatch?.before} />
          <del>{before}</del> <span aria-hidden="true">→</span>
          <span className="visually-hidden">became</span> <Swatch colour={line.swatch?.after} />
          <ins>{after}</ins>
        </>
      )}
      {line.full !== undefined && (
        <Button variant="ghost" className="history-expand" onClick={() => setExpanded(!expanded)} aria-expanded={expanded}>
          {expanded ? 'Show less' : 'Show all'}
        </Button>
      )}
    </li>
  );
}

