// Who is signed in. The session cookie is HttpOnly, so the dashboard asks the server (/api/v1/me),
// through the query cache like every other server state.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo } from 'react';
import { api, ApiError, type User } from './api';

interface SessionState {
  /** undefined while loading, null when signed out. */
  user: User | null | undefined;
  /** Asks the server again, e.g. after a sign-in. */
  refresh: () => Promise<User | null>;
  signOut: () => Promise<void>;
  /** Forget the user locally (the server already ended the session, e.g. "sign out everywhere"). */
  forget: () => void;
}

export const SESSION_QUERY_KEY = ['session'] as const;

/** The signed-in user, or null: a 401 here is the answer, not a session to renew. */
export async function fetchSessionUser(): Promise<User | null> {
  try {
    const { data } = await api.get<{ user: User }>('/api/v1/me', { signInPrompt: false });
    return data.user;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const session = useQuery({ queryKey: SESSION_QUERY_KEY, queryFn: fetchSessionUser, staleTime: Number.POSITIVE_INFINITY });
  // A server that cannot be reached is treated as signed out: the sign-in screen says why on use.
  const user = session.isError ? null : session.data;

  const refresh = useCallback(() => queryClient.fetchQuery({ queryKey: SESSION_QUERY_KEY, queryFn: fetchSessionUser, staleTime: 0 }), [queryClient]);

  /** Nothing of one account may be shown to the next one who signs in on this browser. */
  const forget = useCallback(() => {
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_QUERY_KEY[0] });
    queryClient.setQueryData(SESSION_QUERY_KEY, null);
  }, [queryClient]);

  const signOut = useCallback(async () => {
    await api.post('/auth/logout');
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
