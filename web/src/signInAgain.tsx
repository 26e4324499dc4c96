// A session that ends while someone works (it expired, or they signed out from another device)
// must not cost them their work. The API client (api/client.ts) asks the prompt registered here
// when a request is refused for that reason; the dialog signs the same account in again over the
// screen, and the client sends the refused request again. Every query and mutation goes through
// that client, the editor's included.
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { setSignInPrompt } from './api/client';
import { SignInAgainDialog } from './components/SignInAgainDialog';
import { useSession } from './session';

export function SignInAgainProvider({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const email = user?.email;
  const [open, setOpen] = useState(false);
  // Requests refused together share one dialog and one answer.
  const waiting = useRef<{ answer: Promise<boolean>; resolve: (signedIn: boolean) => void } | undefined>(undefined);

  useEffect(() => {
    // Only someone who was signed in can be signed in again; signed out, a 401 is just the answer.
    if (email === undefined) return;
    setSignInPrompt(() => {
      if (waiting.current === undefined) {
        let resolve: (signedIn: boolean) => void = () => undefined;
        const answer = new Promise<boolean>((done) => {
          resolve = done;
        });
        waiting.current = { answer, resolve };
        setOpen(true);
      }
      return waiting.current.answer;
    });
    return () => setSignInPrompt(undefined);
  }, [email]);

  const finish = useCallback((signedIn: boolean) => {
    const current = waiting.current;
    waiting.current = undefined;
    setOpen(false);
    current?.resolve(signedIn);
  }, []);

  return (
    <>
      {children}
      {open && email !== undefined && <SignInAgainDialog email={email} onSignedIn={() => finish(true)} onCancel={() => finish(false)} />}
    </>
  );
}
