// Server state the settings screens read: one GET each, kept in the query cache under a key, so a
// change elsewhere can refresh it by that key (queryClient.invalidateQueries).
import { type QueryKey, useQuery } from '@tanstack/react-query';
import { api, errorMessage } from './api';

export const QUERY_KEYS = {
  accessTokens: ['access-tokens'],
  sessions: ['me', 'sessions'],
  passkeys: ['me', 'passkeys'],
  totp: ['me', 'totp'],
  securityEvents: ['me', 'security-events'],
  identities: ['me', 'identities'],
  authConfig: ['auth-config'],
  workspaces: ['workspaces'],
} as const satisfies Record<string, QueryKey>;

export interface ServerData<T> {
  /** undefined until the first answer arrives. */
  data: T | undefined;
  /** The last load's failure in words, for a "could not load" message with a retry. */
  error: string | undefined;
  reload: () => Promise<void>;
}

/** GETs `url` while the screen shows it, shaped by `select`. */
export function useServerData<Body, T>(queryKey: QueryKey, url: string, select: (body: Body) => T): ServerData<T> {
  const query = useQuery({ queryKey, queryFn: async ({ signal }) => (await api.get<Body>(url, { signal })).data, select });
  return {
    data: query.data,
    error: query.error === null ? undefined : errorMessage(query.error),
    reload: async () => {
      await query.refetch();
    },
  };
}
