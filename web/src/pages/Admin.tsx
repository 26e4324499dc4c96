import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { disableUser, enableUser, endUserSessions } from '../api/admin';
import { errorMessage } from '../api/errors';
import type { AdminUser } from '../api/types';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { formatDateTime, formatRelative } from '../format';
import { accountQuery, adminUsersQuery } from '../queries';
import { queryKeys } from '../queryKeys';

/** How long typing may pause before the list is asked for again. */
const SEARCH_PAUSE_MS = 300;

type Action = { kind: 'disable' | 'enable' | 'end-sessions'; user: AdminUser };

/** Admin: every account of this server, searched; disable, enable, sign out (instance administrators). */
export function AdminPage() {
  const account = useQuery({ ...accountQuery(), staleTime: Number.POSITIVE_INFINITY }).data;
  if (account === undefined) return <Loading label="Loading…" />;
  if (account === null || !account.instance_admin) {
    return (
      <>
        <header className="page-header">
          <div>
            <h1>Admin</h1>
          </div>
        </header>
        <Alert kind="error" title="Only instance administrators can open this">
          <p>The administrator of this Siteward server makes someone an instance administrator from its command line.</p>
        </Alert>
      </>
    );
  }
  return <AdminUsers selfId={account.user.id} />;
}

function AdminUsers({ selfId }: { selfId: string }) {
  const searchId = useId();
  const [searchText, setSearchText] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const wanted = searchText.trim();
    const timer = window.setTimeout(() => setQuery(wanted), SEARCH_PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [searchText]);
  const list = useInfiniteQuery(adminUsersQuery(query));
  const users = list.data?.pages.flatMap((page) => page.users) ?? [];
  const queryClient = useQueryClient();
  const [action, setAction] = useState<Action>();
  const [notice, setNotice] = useState<string>();
  const act = useMutation({
    mutationFn: async ({ kind, user }: Action) => {
      if (kind === 'disable') await disableUser(user.id);
      else if (kind === 'enable') await enableUser(user.id);
      else await endUserSessions(user.id);
    },
    onSuccess: async (_answer, { kind, user }) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.admin.all() });
      setNotice(kind === 'disable' ? `${user.email} is disabled.` : kind === 'enable' ? `${user.email} is enabled.` : `${user.email} is signed out everywhere.`);
      close();
    },
  });

  function close() {
    setAction(undefined);
    act.reset();
  }

  return (
    <>
      <header className="page-header">
        <div>
          <h1>Admin</h1>
          <p>Every account on this Siteward server. Disable one to stop its sign-ins, sessions, API tokens and access tokens at once.</p>
        </div>
      </header>
      {notice !== undefined && <Alert kind="success">{notice}</Alert>}
      <section className="card" aria-labelledby="admin-users-title">
        <h2 id="admin-users-title">Users</h2>
        <div className="list-toolbar">
          <div className="field list-search">
            <label htmlFor={searchId}>Search users</label>
            <input id={searchId} type="search" value={searchText} onChange={(event) => setSearchText(event.target.value)} placeholder="E-mail address or name" autoComplete="off" maxLength={200} />
          </div>
        </div>
        {list.isError ? (
          <LoadFailed title="The users could not be loaded" message={errorMessage(list.error)} error={list.error} onRetry={() => void list.refetch()} />
        ) : list.data === undefined ? (
          <Loading label="Loading users…" />
        ) : users.length === 0 ? (
          <p className="muted">{query === '' ? 'No accounts yet.' : 'No account matches this search.'}</p>
        ) : (
          <>
            <ul className="list" aria-label="Users" aria-busy={list.isFetchingNextPage || undefined}>
              {users.map((user) => (
                <UserRow key={user.id} user={user} self={user.id === selfId} onAction={(kind) => setAction({ kind, user })} />
              ))}
            </ul>
            {list.hasNextPage && (
              <Button onClick={() => void list.fetchNextPage()} busy={list.isFetchingNextPage}>
                Show more users
              </Button>
            )}
          </>
        )}
      </section>
      <ConfirmDialog
        open={action !== undefined}
        title={action?.kind === 'disable' ? 'Disable this account?' : action?.kind === 'enable' ? 'Enable this account?' : 'Sign this account out everywhere?'}
        confirmLabel={action?.kind === 'disable' ? 'Disable' : action?.kind === 'enable' ? 'Enable' : 'Sign out everywhere'}
        danger={action?.kind !== 'enable'}
        busy={act.isPending}
        onConfirm={() => action !== undefined && act.mutate(action)}
        onCancel={close}
      >
        <p>
          {action === undefined
            ? ''
            : action.kind === 'disable'
              ? `${action.user.email} will be signed out everywhere at once, its API tokens (JWTs) will stop for good, its access tokens will be refused, and it will not be able to sign in until enabled.`
              : action.kind === 'enable'
                ? `${action.user.email} will be able to sign in again, and its access tokens will work again.`
                : `Every session of ${action.user.email} ends and every API token (JWT) issued so far stops. Its access tokens keep working.`}
        </p>
        {act.error !== null && <Alert kind="error">{errorMessage(act.error)}</Alert>}
      </ConfirmDialog>
    </>
  );
}

function UserRow({ user, self, onAction }: { user: AdminUser; self: boolean; onAction: (kind: Action['kind']) => void }) {
  const label = user.name.trim() === '' ? user.email : `${user.name} (${user.email})`;
  return (
    <li>
      <div className="list-main">
        <strong>{user.email}</strong>
        <span className="muted small">
          {user.name.trim() === '' ? '' : `${user.name} · `}
          Joined <time dateTime={user.created_at}>{formatDateTime(user.created_at)}</time> · Last sign-in{' '}
          {user.last_sign_in_at === null ? (
            'none recorded'
          ) : (
            <time dateTime={user.last_sign_in_at} title={formatDateTime(user.last_sign_in_at)}>
              {formatRelative(user.last_sign_in_at)}
            </time>
          )}
        </span>
      </div>
      {user.instance_admin && <span className="badge badge-accent">Administrator</span>}
      {!user.email_verified && <span className="badge">Address not confirmed</span>}
      {user.disabled && <span className="badge badge-danger">Disabled</span>}
      {self ? (
        <span className="badge">You</span>
      ) : (
        <>
          <Button onClick={() => onAction('end-sessions')} aria-label={`Sign out ${label} everywhere`}>
            Sign out…
          </Button>
          {user.disabled ? (
            <Button onClick={() => onAction('enable')} aria-label={`Enable ${label}`}>
              Enable…
            </Button>
          ) : (
            <Button variant="danger" onClick={() => onAction('disable')} aria-label={`Disable ${label}`}>
              Disable…
            </Button>
          )}
        </>
      )}
    </li>
  );
}
