import { type Dispatch, type SetStateAction, useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from './api';

export interface Resource<T> {
  /** undefined until the first answer arrives. */
  data: T | undefined;
  /** For local updates after a write (a created or revoked item) without asking again. */
  setData: Dispatch<SetStateAction<T | undefined>>;
  /** The last load's failure, for a "could not load" message with a retry. */
  error: string | undefined;
  reload: () => Promise<void>;
}

/**
 * GETs `url` when the screen opens (and again whenever `reloadKey` changes), keeping the answer,
 * shaped by `select`, and the failure. The screens' lists (tokens, sessions, passkeys, 2FA status)
 * all load this way.
 */
export function useResource<Body, T>(url: string, select: (body: Body) => T, reloadKey?: unknown): Resource<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  // `select` is a plain function of the body; a new one each render must not reload.
  const reload = useCallback(async () => {
    try {
      const { data: body } = await api.get<Body>(url);
      setData(select(body));
      setError(undefined);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }, [url]);

  useEffect(() => {
    void reload();
  }, [reload, reloadKey]);

  return { data, setData, error, reload };
}
