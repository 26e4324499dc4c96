// Who is signed in. The session cookie is HttpOnly, so the dashboard asks the server (/api/v1/me).
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
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

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null | undefined>(undefined);

  const refresh = useCallback(async () => {
    try {
      const { data } = await api.get<{ user: User }>('/api/v1/me');
      setUser(data.user);
      return data.user;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setUser(null);
        return null;
      }
      throw error;
    }
  }, []);

  const signOut = useCallback(async () => {
    await api.post('/auth/logout');
    setUser(null);
  }, []);

  const forget = useCallback(() => setUser(null), []);

  useEffect(() => {
    refresh().catch(() => setUser(null));
  }, [refresh]);

  const value = useMemo(() => ({ user, refresh, signOut, forget }), [user, refresh, signOut, forget]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside SessionProvider');
  return session;
}
