import { useState } from 'react';
import { api, ApiError, errorMessage, type User } from '../api';
import { asSentence } from '../format';
import { useSession } from '../session';
import { useSubmission } from '../useSubmission';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';

/** The server's limit (NAME_MAX_LENGTH in src/users/schema.ts), counted in characters. */
const NAME_MAX_LENGTH = 200;

/** Settings > Profile > Name: how Siteward addresses you. */
export function ProfileNameSection() {
  const { user, refresh } = useSession();
  const [name, setName] = useState(user?.name ?? '');
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmission(
    async () => {
      setSaved(false);
      const { data } = await api.patch<{ user: User }>('/api/v1/me', { name });
      setName(data.user.name);
      setSaved(true);
      await refresh();
    },
    { staysAfterSuccess: true },
  );
  const fieldError = error instanceof ApiError ? error.fieldMessage('name') : undefined;

  return (
    <section className="card" aria-labelledby="profile-name-title">
      <div className="card-header">
        <div>
          <h2 id="profile-name-title">Your name</h2>
          <p>How Siteward addresses you. It may be left empty.</p>
        </div>
      </div>
      {saved && <Alert kind="success">Name saved.</Alert>}
      {error !== undefined && fieldError === undefined && <Alert kind="error">{errorMessage(error)}</Alert>}
      <form onSubmit={submit} noValidate className="password-form">
        <Field
          label="Name"
          name="name"
          autoComplete="name"
          value={name}
          maxLength={NAME_MAX_LENGTH}
          onChange={(event) => {
            setName(event.target.value);
            setSaved(false);
          }}
          error={fieldError === undefined ? undefined : asSentence(fieldError)}
        />
        <div className="row">
          <Button type="submit" variant="primary" busy={busy}>
            Save name
          </Button>
        </div>
      </form>
    </section>
  );
}
