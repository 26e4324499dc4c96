// A sentence for the sign-in screen from a screen that has just signed the person out for good
// (the account deleted). Held here rather than in the address: signing out re-renders the
// dashboard, whose own redirect to the sign-in screen would replace any query string set first.
let pending: string | undefined;

export function leaveSignInNotice(text: string): void {
  pending = text;
}

/** The notice left for the sign-in screen, if any; it stays until cleared, so a re-render still shows it. */
export function peekSignInNotice(): string | undefined {
  return pending;
}

export function clearSignInNotice(): void {
  pending = undefined;
}
