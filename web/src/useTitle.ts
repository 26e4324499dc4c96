import { useEffect } from 'react';

/** Sets the tab title, so history and screen readers name the screen. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Siteward`;
  }, [title]);
}
