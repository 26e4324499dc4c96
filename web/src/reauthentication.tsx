// Recent authentication: changes such as a new access token, passkey or 2FA need a recent sign-in.
// When the server refuses one for that (403 reauthentication_required), the API client
// (api/client.ts) asks the prompt registered here, which opens the dialog; once the person has
// confirmed, the client sends the refused request again, so no screen has to handle it.
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { setReauthenticationPrompt } from './api/client';
import { ReauthenticateDialog } from './components/ReauthenticateDialog';

export function ReauthenticationProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  // Requests refused together share one dialog and one answer.
  const waiting = useRef<{ answer: Promise<boolean>; resolve: (confirmed: boolean) => void } | undefined>(undefined);

  useEffect(() => {
    setReauthenticationPrompt(() => {
      if (waiting.current === undefined) {
        let resolve: (confirmed: boolean) => void = () => undefined;
        const answer = new Promise<boolean>((done) => {
          resolve = done;
        });
        waiting.current = { answer, resolve };
        setOpen(true);
      }
      return waiting.current.answer;
    });
    return () => setReauthenticationPrompt(undefined);
  }, []);

  const finish = useCallback((confirmed: boolean) => {
    const current = waiting.current;
    waiting.current = undefined;
    setOpen(false);
    current?.resolve(confirmed);
  }, []);

  return (
    <>
      {children}
      {open && <ReauthenticateDialog onConfirmed={() => finish(true)} onCancel={() => finish(false)} />}
    </>
  );
}
