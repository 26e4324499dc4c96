// A sentence for the sign-in screen from a screen that has just signed the person out for good
// (the account deleted). Held here rather than in the address: signing out re-renders the
// dashboard, whose own redirect to the sign-in screen would replace any query string set first.
// The sign-in screen subscribes, so the sentence shows whether that screen mounts before or after
// it is left here.
let pending: string | undefined;
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of listeners) listener();
}

export function leaveSignInNotice(text: string): void {
  pending = text;
  changed();
}

/** The notice left for the sign-in screen, if any; it stays until cleared, so a re-render still shows it. */
export function peekSignInNotice(): string | undefined {
  return pending;
}

export function subscribeToSignInNotice(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function clearSignInNotice(): void {
  if (pending === undefined) return;
  pending = undefined;
  changed();
}
