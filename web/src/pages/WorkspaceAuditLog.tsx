import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { AuditAction } from '@server/audit/contract';
import type { AuditLogPageJson } from '@server/audit/schema';
import { api, errorMessage } from '../api';
import { actorName, AUDIT_ACTION_OPTIONS, auditSentence, type AuditEvent, viaText } from '../auditText';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { WorkspaceAdminGate, WorkspaceScreenHeader } from '../components/WorkspaceAdminGate';
import { formatDateTime, formatRelative } from '../format';
import { type Member, type Workspace, workspaceMembersKey, workspaceUrl } from '../workspaces';

const PAGE_SIZE = 50;

interface Filter {
  action: AuditAction | '';
  actorId: string;
}

/** The filter as query parameters, with a page's limit and cursor when reading by pages. */
function logQuery(filter: Filter, page?: { cursor: string | null }): string {
  const query = new URLSearchParams();
  if (page !== undefined) query.set('limit', String(PAGE_SIZE));
  if (page !== undefined && page.cursor !== null) query.set('cursor', page.cursor);
  if (filter.action !== '') query.set('action', filter.action);
  if (filter.actorId !== '') query.set('actor_id', filter.actorId);
  return query.toString();
}

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
  const url = `${workspaceUrl(workspace.id)}/audit-log`;
  const members = useQuery({ queryKey: workspaceMembersKey(workspace.id), queryFn: async ({ signal }) => (await api.get<{ members: Member[] }>(`${workspaceUrl(workspace.id)}/members`, { signal })).data.members });
  const log = useInfiniteQuery({
    queryKey: ['workspaces', workspace.id, 'audit-log', filter],
    queryFn: async ({ pageParam, signal }) => (await api.get<AuditLogPageJson>(`${url}?${logQuery(filter, { cursor: pageParam })}`, { signal })).data,
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
  const download = useMutation({
    mutationFn: async () => (await api.get<string>(`${url}?${logQuery(filter)}`, { headers: { accept: 'application/x-ndjson' }, text: true })).data,
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
            Download as NDJSON
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
