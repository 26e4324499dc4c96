// Screens and dialogs nobody needs at first load in chunks of their own (React.lazy). Opened cold,
// their Suspense fallback shows while the code arrives. Opened from another screen, React keeps
// that screen up meanwhile (the router navigates in a transition), so the top bar shows that
// something is on its way. A chunk that fails to load throws where it renders: the error screen.
import { type ComponentType, type LazyExoticComponent, lazy, useSyncExternalStore } from 'react';

let pending = 0;
const listeners = new Set<() => void>();

function track(by: number): void {
  pending += by;
  for (const listener of listeners) listener();
}

/** React.lazy for a named export: pass a function that imports the module and picks the component from it. */
export function loadOnFirstUse<Props extends object>(load: () => Promise<ComponentType<Props>>): LazyExoticComponent<ComponentType<Props>> {
  return lazy(async () => {
    track(1);
    try {
      return { default: await load() };
    } finally {
      track(-1);
    }
  });
}

/** True while the code of a screen or dialog is being fetched. */
export function useLoadingCode(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => pending > 0,
  );
}
