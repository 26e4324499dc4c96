import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, errorMessage } from '../api/errors';
import { Alert } from './Alert';
import { Button } from './Button';
import { CodeField } from './CodeField';
import { ConfirmDialog } from './ConfirmDialog';
import { CopyButton } from './CopyButton';
import { Field } from './Field';
import { LoadFailed } from './LoadFailed';
import { Loading } from './Loading';
import { useTotpStatus } from '../queries';
import { RecoveryCodes } from './RecoveryCodes';
import { TOTP_ERRORS } from '@server/totp/errors';
import type { TotpSetup } from '../api/types';
import { disableTotp, enableTotp, regenerateRecoveryCodes, startTotpSetup } from '../api/account';

type View = { kind: 'status' } | { kind: 'setup'; setup: TotpSetup } | { kind: 'codes'; codes: string[] };

/** The message for a code field: a wrong code belongs next to the code, anything else in an alert. */
function codeError(error: unknown): { field?: string; alert?: string } {
  if (error instanceof ApiError && (error.code === TOTP_ERRORS.OTP_INVALID || error.status === 429 || error.fieldMessage('code') !== undefined)) {
    return { field: error.code === TOTP_ERRORS.OTP_INVALID ? 'That code is wrong or has already been used. Wait for the next one and try again.' : errorMessage(error) };
  }
  return { alert: errorMessage(error) };
}

/** The SVG QR code as a data: URL for an <img>, so its markup never enters the page's DOM. */
function svgDataUrl(svg: string): string {
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}

/** "JBSW Y3DP EHPK 3PXP": easier to read and type than one long run of letters. */
function groupInFours(secret: string): string {
  return (secret.match(/.{1,4}/g) ?? []).join(' ');
}

const LOW_RECOVERY_CODES = 3;

export function TwoFactorSection({ onChanged }: { onChanged: () => void }) {
  const totp = useTotpStatus();
  const status = totp.data;
  const loadError = totp.isError ? errorMessage(totp.error) : undefined;
  const load = async () => {
    await totp.refetch();
  };
  const [view, setView] = useState<View>({ kind: 'status' });
  const [notice, setNotice] = useState<string>();
  const start = useMutation({ mutationFn: startTotpSetup, onSuccess: (setup) => setView({ kind: 'setup', setup }) });
  const actionError = start.error === null ? undefined : errorMessage(start.error);

  function startSetup() {
    setNotice(undefined);
    start.mutate();
  }

  function showCodes(codes: string[], message: string) {
    setView({ kind: 'codes', codes });
    setNotice(message);
    void load();
    onChanged();
  }

  return (
    <section className="card security-card" aria-labelledby="two-factor-title">
      <div className="card-header">
        <div>
          <h2 id="two-factor-title">Two-factor authentication</h2>
          <p>Ask for a code from an authenticator app whenever you sign in with your password or an e-mail link.</p>
        </div>
        {status !== undefined && (
          <span className={status.enabled ? 'badge badge-success' : 'badge'}>{status.enabled ? 'On' : 'Off'}</span>
        )}
      </div>
      {notice !== undefined && <Alert kind="success">{notice}</Alert>}
      {actionError !== undefined && <Alert kind="error">{actionError}</Alert>}
      {loadError !== undefined ? (
        <LoadFailed title="Could not load two-factor settings" message={loadError} onRetry={() => void load()} />
      ) : status === undefined ? (
        <Loading label="Loading two-factor settings…" />
      ) : view.kind === 'setup' ? (
        <TotpSetupPanel
          setup={view.setup}
          onCancel={() => setView({ kind: 'status' })}
          onEnabled={(codes) => showCodes(codes, 'Two-factor authentication is on. Signing in now asks for a code from your app.')}
        />
      ) : view.kind === 'codes' ? (
        <RecoveryCodes
          codes={view.codes}
          onDone={() => {
            setView({ kind: 'status' });
            setNotice(undefined);
          }}
        />
      ) : status.enabled ? (
        <EnabledTotp
          remaining={status.recovery_codes_remaining}
          onRegenerated={(codes) => showCodes(codes, 'New recovery codes are ready; the old ones no longer work.')}
          onDisabled={() => {
            setNotice('Two-factor authentication is off.');
            void load();
            onChanged();
          }}
        />
      ) : (
        <div className="row">
          <Button variant="primary" busy={start.isPending} onClick={startSetup}>
            Set up two-factor authentication
          </Button>
        </div>
      )}
    </section>
  );
}

function TotpSetupPanel({ setup, onCancel, onEnabled }: { setup: TotpSetup; onCancel: () => void; onEnabled: (codes: string[]) => void }) {
  const [code, setCode] = useState('');
  const enable = useMutation({ mutationFn: enableTotp, onSuccess: onEnabled });
  const { field: fieldError, alert } = enable.error === null ? {} : codeError(enable.error);
  const busy = enable.isPending;

  function submit(event: FormEvent) {
    event.preventDefault();
    enable.mutate(code);
  }

  return (
    <div className="totp-setup">
      <figure className="totp-qr">
        <img src={svgDataUrl(setup.qr_svg)} alt="QR code to scan with your authenticator app" width={200} height={200} />
      </figure>
      <div className="totp-steps">
        <h3>1. Scan the QR code</h3>
        <p className="muted">Use an authenticator app such as 1Password, Google Authenticator or Authy.</p>
        <div className="totp-secret-row">
          <Field
            label="Setup key"
            className="totp-secret"
            readOnly
            value={groupInFours(setup.secret)}
            spellCheck={false}
            onFocus={(event) => event.currentTarget.select()}
            hint="Can’t scan the code? Type this key into the app instead."
          />
          <CopyButton text={setup.secret} label="Copy key" />
        </div>
        <h3>2. Enter the code the app shows</h3>
        {alert !== undefined && <Alert kind="error">{alert}</Alert>}
        <form onSubmit={submit} noValidate>
          <CodeField value={code} onChange={setCode} error={fieldError} label="6-digit code" />
          <div className="row">
            <Button type="submit" variant="primary" busy={busy}>
              Turn on
            </Button>
            <Button onClick={onCancel} disabled={busy}>
              Cancel
            </Button>
          </div>
        </form>
      </div>
    </div>
  );
}

type CodeAction = 'disable' | 'regenerate';

function EnabledTotp({ remaining, onRegenerated, onDisabled }: { remaining: number; onRegenerated: (codes: string[]) => void; onDisabled: () => void }) {
  const [action, setAction] = useState<CodeAction>();
  const [code, setCode] = useState('');
  // Confirmed with no code: said at the field, before any request.
  const [codeMissing, setCodeMissing] = useState(false);
  const confirmation = useMutation({
    mutationFn: async ({ chosen, confirmingCode }: { chosen: CodeAction; confirmingCode: string }): Promise<string[] | undefined> => {
      if (chosen === 'regenerate') return regenerateRecoveryCodes(confirmingCode);
      await disableTotp(confirmingCode);
      return undefined;
    },
    onSuccess: (recoveryCodes) => {
      setAction(undefined);
      if (recoveryCodes === undefined) onDisabled();
      else onRegenerated(recoveryCodes);
    },
  });
  const refusal = confirmation.error === null ? {} : codeError(confirmation.error);
  const fieldError = codeMissing ? 'Enter a code to confirm.' : refusal.field;
  const alert = refusal.alert;
  const busy = confirmation.isPending;

  function open(next: CodeAction) {
    setAction(next);
    setCode('');
    setCodeMissing(false);
    confirmation.reset();
  }

  function confirm() {
    if (action === undefined) return;
    const missing = code.trim() === '';
    setCodeMissing(missing);
    if (missing) return;
    confirmation.mutate({ chosen: action, confirmingCode: code });
  }

  return (
    <>
      <p className="totp-remaining">
        <span className={remaining <= LOW_RECOVERY_CODES ? 'badge badge-danger' : 'badge'}>{remaining} of 10</span> recovery codes left
        {remaining <= LOW_RECOVERY_CODES && <span className="muted"> — make new ones before you run out.</span>}
      </p>
      <div className="row">
        <Button onClick={() => open('regenerate')}>Regenerate recovery codes</Button>
        <Button variant="danger" onClick={() => open('disable')}>
          Turn off
        </Button>
      </div>
      <ConfirmDialog
        open={action !== undefined}
        title={action === 'disable' ? 'Turn off two-factor authentication?' : 'Replace your recovery codes?'}
        confirmLabel={action === 'disable' ? 'Turn off' : 'Replace codes'}
        danger={action === 'disable'}
        busy={busy}
        onConfirm={confirm}
        onCancel={() => setAction(undefined)}
      >
        <p>
          {action === 'disable'
            ? 'Signing in will need only your password or an e-mail link. Confirm with a code from your app or a recovery code.'
            : 'Your current recovery codes stop working at once. Confirm with a code from your app or a recovery code.'}
        </p>
        {alert !== undefined && <Alert kind="error">{alert}</Alert>}
        {/* A form, so Enter in the code field confirms. */}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            confirm();
          }}
          noValidate
        >
          {action !== undefined && <CodeField value={code} onChange={setCode} error={fieldError} allowRecoveryCode autoFocus label="Code" />}
        </form>
      </ConfirmDialog>
    </>
  );
}
