import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/errors';
import type { WebSession } from '../api/types';
import { formatDateTime, formatRelative } from '../format';
import { navigate } from '../router';
import { useSession } from '../session';
import { Alert } from './Alert';
import { Button } from './Button';
import { ConfirmDialog } from './ConfirmDialog';
import { describeUserAgent } from './describeUserAgent';
import { LoadFailed } from './LoadFailed';
import { Loading } from './Loading';
import { useSessions } from '../queries';
import { revokeEverySession, revokeSession } from '../api/account';

/** This device first, then the most recently active. */
function thisDeviceFirst(sessions: WebSession[]): WebSession[] {
  return [...sessions].sort((a, b) => Number(b.current) - Number(a.current) || b.last_seen_at.localeCompare(a.last_seen_at));
}

/** Other sections that end sessions (a new password, 2FA turned off) refresh the sessions query. */
export function SessionsSection() {
  const { forget } = useSession();
  const sessionList = useSessions();
  const sessions = sessionList.data === undefined ? undefined : thisDeviceFirst(sessionList.data);
  const loadError = sessionList.isError ? errorMessage(sessionList.error) : undefined;
  const load = async () => {
    await sessionList.refetch();
  };
  const [notice, setNotice] = useState<string>();
  const [revoking, setRevoking] = useState<WebSession>();
  const [everywhere, setEverywhere] = useState(false);
  const revoke = useMutation({
    mutationFn: (session: WebSession) => revokeSession(session.id),
    onSuccess: async (_answer, session) => {
      await load();
      setNotice(`Signed out ${describeUserAgent(session.user_agent)}.`);
      closeDialogs();
    },
  });
  const signOutEverywhere = useMutation({
    mutationFn: revokeEverySession,
    onSuccess: () => {
      // The server ended this session too: forget the user and go to sign-in without asking.
      forget();
      navigate('/sign-in', { force: true });
    },
  });
  const busy = revoke.isPending || signOutEverywhere.isPending;
  const dialogFailure = revoke.error ?? signOutEverywhere.error;
  const dialogError = dialogFailure === null ? undefined : errorMessage(dialogFailure);

  function closeDialogs() {
    setRevoking(undefined);
    setEverywhere(false);
    revoke.reset();
    signOutEverywhere.reset();
  }

  const others = sessions?.filter((session) => !session.current).length ?? 0;

  return (
    <section className="card security-card" aria-labelledby="sessions-title">
      <div className="card-header">
        <div>
          <h2 id="sessions-title">Active sessions</h2>
          <p>Browsers signed in to your account. Sign out any you do not recognise, then change your password.</p>
        </div>
        <Button variant="danger" onClick={() => setEverywhere(true)} disabled={sessions === undefined}>
          Sign out everywhere
        </Button>
      </div>
      {notice !== undefined && <Alert kind="success">{notice}</Alert>}
      {loadError !== undefined ? (
        <LoadFailed title="Could not load your sessions" message={loadError} onRetry={() => void load()} />
      ) : sessions === undefined ? (
        <Loading label="Loading sessions…" />
      ) : (
        <>
          <ul className="list" aria-label="Active sessions">
            {sessions.map((session) => (
              <SessionItem key={session.id} session={session} onRevoke={() => setRevoking(session)} />
            ))}
          </ul>
          {others === 0 && <p className="muted small sessions-alone">You are not signed in anywhere else.</p>}
        </>
      )}
      <ConfirmDialog
        open={revoking !== undefined}
        title="Sign out this session?"
        confirmLabel="Sign it out"
        danger
        busy={busy}
        onConfirm={() => revoking !== undefined && revoke.mutate(revoking)}
        onCancel={closeDialogs}
      >
        <p>
          {revoking === undefined ? '' : describeUserAgent(revoking.user_agent)}
          {revoking?.ip ? ` (${revoking.ip})` : ''} will be signed out at once and will have to sign in again.
        </p>
        {dialogError !== undefined && <Alert kind="error">{dialogError}</Alert>}
      </ConfirmDialog>
      <ConfirmDialog
        open={everywhere}
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        danger
        busy={busy}
        onConfirm={() => signOutEverywhere.mutate()}
        onCancel={closeDialogs}
      >
        <p>
          This ends <strong>every</strong> session, including this one, and revokes every API token (JWT) issued so far. Scripts using a JWT must sign in
          again. Personal access tokens keep working.
        </p>
        {dialogError !== undefined && <Alert kind="error">{dialogError}</Alert>}
      </ConfirmDialog>
    </section>
  );
}

function SessionItem({ session, onRevoke }: { session: WebSession; onRevoke: () => void }) {
  const summary = describeUserAgent(session.user_agent);
  return (
    <li>
      <div className="list-main">
        <strong title={session.user_agent || undefined}>{summary}</strong>
        <span className="muted small">
          {session.ip || 'Unknown address'} · Last active{' '}
          <time dateTime={session.last_seen_at} title={formatDateTime(session.last_seen_at)}>
            {formatRelative(session.last_seen_at)}
          </time>{' '}
          · Signed in <time dateTime={session.created_at}>{formatDateTime(session.created_at)}</time>
        </span>
      </div>
      {session.current && <span className="badge badge-accent">This device</span>}
      {session.second_factor_pending && (
        <span className="badge" title="Passed the password or e-mail link, but not yet the two-factor code">
          Waiting for 2FA code
        </span>
      )}
      {!session.current && (
        <Button onClick={onRevoke} aria-label={`Sign out ${summary} session`}>
          Sign out…
        </Button>
      )}
    </li>
  );
}
