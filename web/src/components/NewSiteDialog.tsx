import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, ApiError, errorMessage, type Site } from '../api';
import { NAME_MAX_LENGTH } from '@server/sites/contract';
import { COLOR_PATTERN } from '../siteDraft';
import { useSubmission } from '../useSubmission';
import { Alert } from './Alert';
import { Button } from './Button';
import { ColorField } from './ColorField';
import { Field } from './Field';

const DEFAULT_COLOR = '#4f46e5';

interface NewSiteDialogProps {
  open: boolean;
  onClose: () => void;
  onCreated: (site: Site) => void;
}

/** A modal form for the two things a new site needs; everything else is set in its editor. */
export function NewSiteDialog({ open, onClose, onCreated }: NewSiteDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [name, setName] = useState('');
  const [color, setColor] = useState(DEFAULT_COLOR);
  const { busy, error, setError, submit: send } = useSubmission(
    async () => {
      const { data } = await api.post<{ site: Site }>('/api/v1/sites', { name, color });
      onCreated(data.site);
    },
    { staysAfterSuccess: true },
  );

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      setName('');
      setColor(DEFAULT_COLOR);
      setError(undefined);
      element.showModal();
    }
    if (!open && element.open) element.close();
  }, [open, setError]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (name.trim() === '') {
      setError(new ApiError(400, 'validation_failed', 'Give the site a name.', [{ path: '/name', message: 'Enter a name.' }]));
      return;
    }
    if (!COLOR_PATTERN.test(color)) {
      setError(new ApiError(400, 'validation_failed', 'Check the colour.', [{ path: '/color', message: 'Use #rgb or #rrggbb, e.g. #4f46e5.' }]));
      return;
    }
    void send();
  }

  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldMessage(field) : undefined);
  const generalError = error !== undefined && fieldError('name') === undefined && fieldError('color') === undefined ? errorMessage(error) : undefined;

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby="new-site-title"
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form onSubmit={submit} noValidate>
        <h2 id="new-site-title">New site</h2>
        <p className="muted">Name it and pick a colour; you can set everything else in its editor.</p>
        {generalError !== undefined && <Alert kind="error">{generalError}</Alert>}
        <Field label="Site name" value={name} onChange={(event) => {
            setName(event.target.value);
            setError(undefined);
          }} maxLength={NAME_MAX_LENGTH} required autoFocus error={fieldError('name')} />
        <ColorField
          label="Colour"
          value={color}
          onChange={(value) => {
            setColor(value);
            setError(undefined);
          }}
          error={fieldError('color')}
        />
        <div className="dialog-actions">
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy}>
            Create site
          </Button>
        </div>
      </form>
    </dialog>
  );
}
