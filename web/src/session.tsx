// Who is signed in. The session cookie is HttpOnly, so the dashboard asks the server (/api/v1/me),
// through the query cache like every other server state.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo } from 'react';
import { signOut as endWebSession } from './api/signIn';
import type { User } from './api/types';
import { accountQuery } from './queries';
import { queryKeys } from './queryKeys';

interface SessionState {
  /** undefined while loading, null when signed out. */
  user: User | null | undefined;
  /** Asks the server again, e.g. after a sign-in. */
  refresh: () => Promise<User | null>;
  signOut: () => Promise<void>;
  /** Forget the user locally (the server already ended the session, e.g. "sign out everywhere"). */
  forget: () => void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const session = useQuery({ ...accountQuery(), staleTime: Number.POSITIVE_INFINITY });
  // A server that cannot be reached at first is treated as signed out: the sign-in screen says why
  // on use. A refresh that fails later keeps who was signed in.
  const user = session.data === undefined ? (session.isError ? null : undefined) : (session.data?.user ?? null);

  const refresh = useCallback(async () => (await queryClient.fetchQuery({ ...accountQuery(), staleTime: 0 }))?.user ?? null, [queryClient]);

  /** Nothing of one account may be shown to the next one who signs in on this browser. */
  const forget = useCallback(() => {
    const account = queryKeys.account.me();
    queryClient.removeQueries({ predicate: (query) => !(query.queryKey.length === account.length && query.queryKey.every((part, index) => part === account[index])) });
    queryClient.setQueryData(account, null);
  }, [queryClient]);

  const signOut = useCallback(async () => {
    await endWebSession();
    forget();
  }, [forget]);

  const value = useMemo(() => ({ user, refresh, signOut, forget }), [user, refresh, signOut, forget]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside SessionProvider');
  return session;
}
