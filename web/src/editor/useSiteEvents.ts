// Another person's save, heard as it happens: the site's event stream (GET /api/v1/sites/{id}/events)
// sends each new version with who made it. The browser's EventSource sends the session cookie and
// reconnects by itself when the stream ends (the server ends it now and then to check access again).
import { useEffect, useRef, useState } from 'react';
import type { paths } from '../api/schema';

/** One new version of the site, as the stream sends it. */
export interface SiteVersionEvent {
  version: number;
  updated_at: string;
  actor_id: string | null;
  actor_name: string | null;
}

const SITE_EVENTS: keyof paths = '/api/v1/sites/{id}/events';

function isVersionEvent(value: unknown): value is SiteVersionEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  return typeof event.version === 'number' && typeof event.updated_at === 'string';
}

/** The version an ETag names ("7"), or undefined for none. */
export function versionOfEtag(etag: string | null): number | undefined {
  const match = etag === null ? null : /^(?:W\/)?"(\d+)"$/.exec(etag);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The newest version of the site someone else saved after the version the editor holds; undefined
 * while there is none. The editor's own saves (its user as the actor) are never reported.
 */
export function useNewerVersion(siteId: string, heldVersion: number | undefined, userId: string | undefined): SiteVersionEvent | undefined {
  const [newest, setNewest] = useState<SiteVersionEvent>();
  const onEvent = useRef<(event: SiteVersionEvent) => void>(() => undefined);
  onEvent.current = (event) => {
    if (event.actor_id !== null && event.actor_id === userId) return;
    setNewest((before) => (before === undefined || event.version > before.version ? event : before));
  };
  useEffect(() => {
    setNewest(undefined);
    const source = new EventSource(SITE_EVENTS.replace('{id}', encodeURIComponent(siteId)));
    const listener = (message: MessageEvent<string>) => {
      try {
        const event: unknown = JSON.parse(message.data);
        if (isVersionEvent(event)) onEvent.current(event);
      } catch {
        // Not an event of ours: nothing to show.
      }
    };
    source.addEventListener('version', listener);
    return () => {
      source.removeEventListener('version', listener);
      source.close();
    };
  }, [siteId]);
  return newest !== undefined && heldVersion !== undefined && newest.version > heldVersion ? newest : undefined;
}
