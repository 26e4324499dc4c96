import { startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { ApiError, errorMessage } from '../api/errors';
import type { Passkey } from '../api/types';
import { formatDateTime, formatRelative } from '../format';
import { Alert } from './Alert';
import { Button } from './Button';
import { ConfirmDialog } from './ConfirmDialog';
import { Field } from './Field';
import { LoadFailed } from './LoadFailed';
import { Loading } from './Loading';
import { usePasskeys } from '../queries';
import { operatingSystemOf } from './describeUserAgent';
import { addPasskey, passkeyRegistrationOptions, removePasskey, renamePasskey } from '../api/account';

function defaultPasskeyName(): string {
  const system = operatingSystemOf(navigator.userAgent);
  return system === undefined ? 'Passkey' : `Passkey on ${system}`;
}

/** Whether the browser can make passkeys at all (not in old browsers, nor on plain http off localhost). */
function supportsPasskeys(): boolean {
  return typeof window.PublicKeyCredential !== 'undefined';
}

/** The user closed or timed out the browser's prompt: nothing went wrong, nothing was added. */
function isCancelled(error: unknown): boolean {
  return (error instanceof WebAuthnError || error instanceof DOMException) && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

function SyncBadge({ passkey }: { passkey: Passkey }) {
  if (passkey.device_type === 'single_device') {
    return (
      <span className="badge" title="Bound to one authenticator, such as a security key">
        Device-bound
      </span>
    );
  }
  return passkey.backed_up ? (
    <span className="badge badge-success" title="Backed up and synced between your devices by a password manager or your platform">
      Synced
    </span>
  ) : (
    <span className="badge" title="Can be synced between devices, but was not backed up as of its last use">
      Not synced yet
    </span>
  );
}

export function PasskeysSection() {
  const passkeyList = usePasskeys();
  const passkeys = passkeyList.data;
  const loadError = passkeyList.isError ? errorMessage(passkeyList.error) : undefined;
  const load = async () => {
    await passkeyList.refetch();
  };
  const [notice, setNotice] = useState<{ kind: 'success' | 'info'; text: string }>();
  const [removing, setRemoving] = useState<Passkey>();
  const remove = useMutation({
    mutationFn: (passkey: Passkey) => removePasskey(passkey.id),
    onSuccess: async (_answer, passkey) => {
      setNotice({ kind: 'success', text: `Removed “${passkey.name}”. It no longer signs you in.` });
      setRemoving(undefined);
      await load();
    },
  });

  return (
    <section className="card security-card" aria-labelledby="passkeys-title">
      <div className="card-header">
        <div>
          <h2 id="passkeys-title">Passkeys</h2>
          <p>Sign in with your fingerprint, face, screen lock or a security key instead of a password.</p>
        </div>
      </div>
      {notice !== undefined && <Alert kind={notice.kind}>{notice.text}</Alert>}
      {loadError !== undefined ? (
        <LoadFailed title="Could not load your passkeys" message={loadError} onRetry={() => void load()} />
      ) : passkeys === undefined ? (
        <Loading label="Loading passkeys…" />
      ) : passkeys.length === 0 ? (
        <p className="muted passkeys-empty">You have no passkeys yet.</p>
      ) : (
        <ul className="list" aria-label="Your passkeys">
          {passkeys.map((passkey) => (
            <PasskeyItem key={passkey.id} passkey={passkey} onRenamed={load} onRemove={() => setRemoving(passkey)} />
          ))}
        </ul>
      )}
      {passkeys !== undefined &&
        (supportsPasskeys() ? (
          <AddPasskeyForm
            onAdded={async (passkey) => {
              setNotice({ kind: 'success', text: `Added “${passkey.name}”. You can now sign in with it.` });
              await load();
            }}
            onCancelled={() => setNotice({ kind: 'info', text: 'The passkey prompt was closed, so no passkey was added. You can try again whenever you like.' })}
            onStart={() => setNotice(undefined)}
          />
        ) : (
          <Alert kind="info">This browser cannot create passkeys. Use a recent version of Chrome, Edge, Firefox or Safari to add one.</Alert>
        ))}
      <ConfirmDialog
        open={removing !== undefined}
        title="Remove this passkey?"
        confirmLabel="Remove passkey"
        danger
        busy={remove.isPending}
        onConfirm={() => removing !== undefined && remove.mutate(removing)}
        onCancel={() => {
          setRemoving(undefined);
          remove.reset();
        }}
      >
        <p>“{removing?.name}” will no longer sign you in. The passkey stays on your device until you delete it there.</p>
        {remove.error !== null && <Alert kind="error">{errorMessage(remove.error)}</Alert>}
      </ConfirmDialog>
    </section>
  );
}

function PasskeyItem({ passkey, onRenamed, onRemove }: { passkey: Passkey; onRenamed: () => Promise<void>; onRemove: () => void }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(passkey.name);
  // Saved with no name: said at the field, before any request.
  const [nameMissing, setNameMissing] = useState(false);
  const rename = useMutation({
    mutationFn: async (newName: string) => {
      await renamePasskey(passkey.id, newName);
      await onRenamed();
    },
    onSuccess: () => setEditing(false),
  });
  const busy = rename.isPending;
  const error = nameMissing
    ? 'Enter a name.'
    : rename.error === null
      ? undefined
      : rename.error instanceof ApiError
        ? (rename.error.fieldMessage('name') ?? errorMessage(rename.error))
        : errorMessage(rename.error);

  function cancel() {
    setEditing(false);
    setName(passkey.name);
    setNameMissing(false);
    rename.reset();
  }

  function save(event: FormEvent) {
    event.preventDefault();
    const missing = name.trim() === '';
    setNameMissing(missing);
    if (missing) {
      rename.reset();
      return;
    }
    rename.mutate(name.trim());
  }

  if (editing) {
    return (
      <li>
        <form
          className="passkey-rename"
          onSubmit={save}
          onKeyDown={(event: KeyboardEvent) => {
            if (event.key === 'Escape') cancel();
          }}
          noValidate
        >
          <Field label="Passkey name" value={name} onChange={(event) => setName(event.target.value)} maxLength={100} error={error} autoFocus required />
          <div className="row">
            <Button type="submit" variant="primary" busy={busy}>
              Save
            </Button>
            <Button onClick={cancel} disabled={busy}>
              Cancel
            </Button>
          </div>
        </form>
      </li>
    );
  }
  return (
    <li>
      <div className="list-main">
        <strong>{passkey.name}</strong>
        <span className="muted small">
          Added <time dateTime={passkey.created_at}>{formatDateTime(passkey.created_at)}</time> · Last used{' '}
          {passkey.last_used_at === null ? 'never' : <time dateTime={passkey.last_used_at} title={formatDateTime(passkey.last_used_at)}>{formatRelative(passkey.last_used_at)}</time>}
        </span>
      </div>
      <SyncBadge passkey={passkey} />
      <div className="row">
        <Button onClick={() => setEditing(true)} aria-label={`Rename ${passkey.name}`}>
          Rename
        </Button>
        <Button variant="ghost" onClick={onRemove} aria-label={`Remove ${passkey.name}`}>
          Remove
        </Button>
      </div>
    </li>
  );
}

function AddPasskeyForm({ onAdded, onCancelled, onStart }: { onAdded: (passkey: Passkey) => Promise<void>; onCancelled: () => void; onStart: () => void }) {
  const [name, setName] = useState(defaultPasskeyName);
  // Submitted with no name: said at the field, before any request.
  const [nameMissing, setNameMissing] = useState(false);
  const add = useMutation({
    mutationFn: async (newName: string) => {
      const options = await passkeyRegistrationOptions();
      const response = await startRegistration({ optionsJSON: options });
      const created = await addPasskey(newName, response);
      await onAdded(created);
    },
    onSuccess: () => setName(defaultPasskeyName()),
    onError: (error) => {
      if (isCancelled(error)) onCancelled();
    },
  });
  const busy = add.isPending;
  const nameRefusal = add.error instanceof ApiError ? add.error.fieldMessage('name') : undefined;
  const fieldError = nameMissing ? 'Enter a name, so you can tell your passkeys apart.' : nameRefusal;
  const alert =
    add.error === null || isCancelled(add.error) || nameRefusal !== undefined
      ? undefined
      : add.error instanceof WebAuthnError && add.error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED'
        ? 'This authenticator already holds one of your passkeys.'
        : errorMessage(add.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    const missing = name.trim() === '';
    setNameMissing(missing);
    if (missing) return;
    onStart();
    add.mutate(name.trim());
  }

  return (
    <form className="passkey-add" onSubmit={submit} noValidate>
      <h3>Add a passkey</h3>
      {alert !== undefined && <Alert kind="error">{alert}</Alert>}
      <div className="passkey-add-row">
        <Field
          label="Name for the new passkey"
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={100}
          error={fieldError}
          hint="Your browser will ask you to confirm with your fingerprint, face, screen lock or security key."
        />
        <Button type="submit" variant="primary" busy={busy}>
          Add a passkey
        </Button>
      </div>
    </form>
  );
}
