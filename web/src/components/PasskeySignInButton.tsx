import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '../api/errors';
import type { User } from '../api/types';
import { Alert } from './Alert';
import { Button } from './Button';
import { passkeySignIn, passkeySignInOptions } from '../api/signIn';

/** The browser can do WebAuthn at all; without it the button would only ever fail. */
function browserHasWebAuthn(): boolean {
  return typeof window.PublicKeyCredential !== 'undefined';
}

/** The person closed or let the browser's prompt time out, or it held no passkey for this site. */
function wasCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

/**
 * Signs in with a passkey held by the browser or a security key, with no e-mail typed: the server
 * hands out a challenge, the authenticator names the account, the server checks the signature.
 */
export function PasskeySignInButton({ onSignedIn }: { onSignedIn: (user: User) => Promise<void> }) {
  const signIn = useMutation({
    mutationFn: async () => {
      // The WebAuthn helpers load on first use (most sign-ins never need them), beside the challenge.
      const [data, { startAuthentication }] = await Promise.all([passkeySignInOptions(), import('@simplewebauthn/browser')]);
      const response = await startAuthentication({ optionsJSON: data.options });
      const verified = await passkeySignIn(data.challenge_id, response);
      // Stays busy until the dashboard has moved on.
      await onSignedIn(verified);
    },
  });

  if (!browserHasWebAuthn()) return null;

  const message =
    signIn.error === null
      ? undefined
      : wasCancelled(signIn.error)
        ? { kind: 'info' as const, text: 'Passkey sign-in was cancelled. Try again, or sign in another way.' }
        : { kind: 'error' as const, text: errorMessage(signIn.error) };

  return (
    <div className="passkey-sign-in">
      {message !== undefined && <Alert kind={message.kind}>{message.text}</Alert>}
      <Button className="button-block" onClick={() => signIn.mutate()} busy={signIn.isPending}>
        <PasskeyIcon />
        Sign in with a passkey
      </Button>
    </div>
  );
}

/** A key, drawn with strokes so it takes the button's text colour. */
function PasskeyIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <circle cx="7.5" cy="15.5" r="4.5" />
      <path d="M10.7 12.3 20 3" />
      <path d="m16 7 3 3" />
      <path d="m19 4 2 2" />
    </svg>
  );
}
