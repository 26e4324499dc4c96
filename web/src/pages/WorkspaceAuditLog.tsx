import { useInfiniteQuery, useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { errorMessage } from '../api/errors';
import { actorName, AUDIT_ACTION_OPTIONS, auditSentence, type AuditEvent, viaText } from '../auditText';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { WorkspaceAdminGate, WorkspaceScreenHeader } from '../components/WorkspaceAdminGate';
import { formatDateTime, formatRelative } from '../format';
import type { Workspace } from '../workspaces';
import type { AuditLogFilter } from '../queryKeys';
import { exportAuditLog } from '../api/workspaces';
import { auditLogFilterQuery, auditLogQuery, useMembers } from '../queries';

type Filter = AuditLogFilter;

/** Settings > Workspaces > one workspace > Audit log: who changed what, newest first (admins). */
export function WorkspaceAuditLogPage({ workspaceId }: { workspaceId: string }) {
  return (
    <WorkspaceAdminGate workspaceId={workspaceId} title="Audit log" action="audit.read" refusal="Only admins and owners of this workspace read its audit log.">
      {(workspace) => <AuditLogScreen workspace={workspace} />}
    </WorkspaceAdminGate>
  );
}

function AuditLogScreen({ workspace }: { workspace: Workspace }) {
  const [filter, setFilter] = useState<Filter>({ action: '', actorId: '' });
  const actionId = useId();
  const actorId = useId();
  const members = useMembers(workspace.id);
  const log = useInfiniteQuery(auditLogQuery(workspace.id, filter));
  const download = useMutation({
    mutationFn: () => exportAuditLog(workspace.id, auditLogFilterQuery(filter)),
    onSuccess: (text) => {
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
      link.download = `audit-log-${workspace.name.replace(/[^A-Za-z0-9_-]+/g, '-')}-${new Date().toISOString().slice(0, 10)}.ndjson`;
      link.click();
      URL.revokeObjectURL(link.href);
    },
  });
  const events = log.data?.pages.flatMap((page) => page.events) ?? [];
  const filtered = filter.action !== '' || filter.actorId !== '';

  return (
    <>
      <WorkspaceScreenHeader workspace={workspace} title="Audit log">
        Every change to {workspace.name}, its members and invitations: who made it, how and when. Nobody can edit or delete an entry.
      </WorkspaceScreenHeader>
      <section className="card" aria-labelledby="audit-log-title">
        <h2 id="audit-log-title" className="visually-hidden">
          Changes, newest first
        </h2>
        <div className="list-toolbar">
          <div className="field list-sort">
            <label htmlFor={actionId}>Change</label>
            <select id={actionId} value={filter.action} onChange={(event) => setFilter({ ...filter, action: AUDIT_ACTION_OPTIONS.find((option) => option.value === event.target.value)?.value ?? '' })}>
              <option value="">All changes</option>
              {AUDIT_ACTION_OPTIONS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field list-sort">
            <label htmlFor={actorId}>Made by</label>
            <select id={actorId} value={filter.actorId} onChange={(event) => setFilter({ ...filter, actorId: event.target.value })}>
              <option value="">Anyone</option>
              {(members.data ?? []).map((member) => (
                <option key={member.user.id} value={member.user.id}>
                  {member.user.name.trim() === '' ? member.user.email : member.user.name}
                </option>
              ))}
            </select>
          </div>
          <Button onClick={() => download.mutate()} busy={download.isPending}>
            Download these changes
          </Button>
        </div>
        {download.isError && (
          <Alert kind="error" title="The log was not downloaded">
            <p>{errorMessage(download.error)}</p>
          </Alert>
        )}
        {log.isError ? (
          <LoadFailed title="The audit log could not be loaded" message={errorMessage(log.error)} error={log.error} onRetry={() => void log.refetch()} />
        ) : log.data === undefined ? (
          <Loading label="Loading the audit log…" />
        ) : events.length === 0 ? (
          <p className="muted">{filtered ? 'No change matches these filters.' : 'No change has been recorded yet.'}</p>
        ) : (
          <>
            <ul className="list audit-list" aria-busy={log.isFetchingNextPage || undefined}>
              {events.map((event) => (
                <AuditRow key={event.id} event={event} />
              ))}
            </ul>
            {log.hasNextPage && (
              <Button onClick={() => void log.fetchNextPage()} busy={log.isFetchingNextPage}>
                Show older changes
              </Button>
            )}
          </>
        )}
      </section>
    </>
  );
}

function AuditRow({ event }: { event: AuditEvent }) {
  const via = viaText(event);
  return (
    <li>
      <div className="list-main">
        <span>
          <strong className="audit-actor">{actorName(event)}</strong> {auditSentence(event)}
        </span>
        <span className="muted small">
          <time dateTime={event.at} title={formatDateTime(event.at)}>
            {formatRelative(event.at)}
          </time>
          {via !== undefined && ` · ${via}`}
          {event.ip !== null && ` · from ${event.ip}`}
        </span>
      </div>
    </li>
  );
}
