import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, errorMessage } from '../api/errors';
import { useTotpStatus } from '../queries';
import { useSession } from '../session';
import { Alert } from './Alert';
import { Button } from './Button';
import { CodeField } from './CodeField';
import { Field } from './Field';
import { ModalDialog } from './ModalDialog';
import { SingleSignOnReauthentication } from './SingleSignOnReauthentication';
import { ACCOUNT_ERRORS } from '@server/account/errors';
import { TOTP_ERRORS } from '@server/totp/errors';
import { reauthenticateWithPasskey, reauthenticateWithPassword, reauthenticationPasskeyOptions } from '../api/account';

interface ReauthenticateDialogProps {
  /** The server took the proof: the refused request may be sent again. */
  onConfirmed: () => void;
  onCancel: () => void;
}

/** The person closed the browser's prompt or let it time out. */
function wasCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

/**
 * "Confirm it's you": the password (and a code when 2FA is on) or a passkey, sent
 * to POST /api/v1/me/reauthenticate. Mounted by the ReauthenticationProvider whenever a change is
 * refused for want of a recent sign-in, and unmounted after, so each confirmation starts blank.
 */
export function ReauthenticateDialog({ onConfirmed, onCancel }: ReauthenticateDialogProps) {
  const { user } = useSession();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // With 2FA on the code is asked for at once, not only after the server has said so.
  const twoFactor = useTotpStatus();
  const [codeRefused, setNeedsCode] = useState(false);
  const needsCode = codeRefused || twoFactor.data?.enabled === true;
  // Submitted with a field empty: said at that field, before any request.
  const [missing, setMissing] = useState<'password' | 'code'>();

  const withPassword = useMutation({
    mutationFn: (proof: { password: string; code: string | undefined }) => reauthenticateWithPassword(proof.password, proof.code),
    onSuccess: onConfirmed,
    onError: (error) => {
      const refused = error instanceof ApiError ? error.code : undefined;
      if (refused === ACCOUNT_ERRORS.PASSWORD_INVALID) setPassword('');
      else if (refused === TOTP_ERRORS.OTP_REQUIRED) setNeedsCode(true);
      else if (refused === TOTP_ERRORS.OTP_INVALID) setCode('');
    },
  });
  const withPasskey = useMutation({
    mutationFn: async () => {
      // The WebAuthn helpers load on first use, beside the challenge.
      const [data, { startAuthentication }] = await Promise.all([reauthenticationPasskeyOptions(), import('@simplewebauthn/browser')]);
      const response = await startAuthentication({ optionsJSON: data.options });
      await reauthenticateWithPasskey(data.challenge_id, response);
    },
    onSuccess: onConfirmed,
  });
  const busy = withPassword.isPending ? 'password' : withPasskey.isPending ? 'passkey' : undefined;

  function confirmWithPassword(event: FormEvent) {
    event.preventDefault();
    withPasskey.reset();
    const empty = password === '' ? 'password' : needsCode && code.trim() === '' ? 'code' : undefined;
    setMissing(empty);
    if (empty !== undefined) {
      withPassword.reset();
      return;
    }
    withPassword.mutate({ password, code: needsCode ? code : undefined });
  }

  function confirmWithPasskey() {
    setMissing(undefined);
    withPassword.reset();
    withPasskey.mutate();
  }

  const refused = withPassword.error instanceof ApiError ? withPassword.error.code : undefined;
  const errors = {
    password: missing === 'password' ? 'Enter your password.' : refused === ACCOUNT_ERRORS.PASSWORD_INVALID ? 'That is not your password.' : undefined,
    code:
      missing === 'code'
        ? 'Enter a code from your authenticator app, or a recovery code.'
        : refused === TOTP_ERRORS.OTP_REQUIRED
          ? 'Two-factor authentication is on: enter the code from your app, or a recovery code.'
          : refused === TOTP_ERRORS.OTP_INVALID
            ? 'That code is wrong or has already been used. Wait for the next one and try again.'
            : undefined,
    alert:
      withPasskey.error !== null
        ? wasCancelled(withPasskey.error)
          ? 'The passkey prompt was closed. Try again, or use your password.'
          : errorMessage(withPasskey.error)
        : withPassword.error !== null && refused !== ACCOUNT_ERRORS.PASSWORD_INVALID && refused !== TOTP_ERRORS.OTP_REQUIRED && refused !== TOTP_ERRORS.OTP_INVALID
          ? errorMessage(withPassword.error)
          : undefined,
  };

  return (
    <ModalDialog
      title="Confirm it’s you"
      onCancel={() => {
        if (busy === undefined) onCancel();
      }}
    >
      <form onSubmit={confirmWithPassword} noValidate>
        <p className="muted">This change needs a recent sign-in. Confirm with your password{needsCode ? ' and a code' : ''} or a passkey, and it goes ahead.</p>
        {errors.alert !== undefined && <Alert kind="error">{errors.alert}</Alert>}
        {/* Lets a password manager offer the right account's password. */}
        <input type="email" name="username" autoComplete="username" value={user?.email ?? ''} readOnly hidden />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          error={errors.password}
          autoFocus
          required
        />
        {needsCode && <CodeField value={code} onChange={setCode} error={errors.code} allowRecoveryCode autoFocus={codeRefused} label="Code" />}
        <div className="dialog-actions">
          {typeof window.PublicKeyCredential !== 'undefined' && (
            <Button onClick={confirmWithPasskey} busy={busy === 'passkey'} disabled={busy === 'password'}>
              Use a passkey
            </Button>
          )}
          <Button onClick={onCancel} disabled={busy !== undefined}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy === 'password'} disabled={busy === 'passkey'}>
            Confirm
          </Button>
        </div>
        <SingleSignOnReauthentication />
      </form>
    </ModalDialog>
  );
}
