import { type FormEvent, useState } from 'react';
import { ACCESS_TOKEN_SCOPES, type AccessTokenScope } from '@server/auth/scopes';
import type { CreatedAccessTokenJson as CreatedAccessToken } from '@server/access-tokens/schema';
import { api, ApiError, errorMessage } from '../api';
import { useSubmission } from '../useSubmission';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';

export type { CreatedAccessTokenJson as CreatedAccessToken } from '@server/access-tokens/schema';

/** What people read for each scope the server knows; keyed by its list, so a new scope needs words here. Each is checked on its own: write does not imply read. */
const SCOPE_TEXT: Record<AccessTokenScope, { label: string; description: string }> = {
  'sites:read': { label: 'Read sites', description: 'List sites and read their settings.' },
  'sites:write': { label: 'Write sites', description: 'Create, change and delete sites, and run connection checks.' },
};
const SCOPES = ACCESS_TOKEN_SCOPES.map((scope) => ({ scope, ...SCOPE_TEXT[scope] }));

/** Names a new token and picks what it may do. The secret comes back in the answer, this once. */
export function AccessTokenCreateForm({ onCreated }: { onCreated: (token: CreatedAccessToken) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(SCOPES.map(({ scope }) => scope));
  const { busy, error, submit: send } = useSubmission(
    async () => {
      const ordered = SCOPES.map(({ scope }) => scope).filter((scope) => scopes.includes(scope));
      const { data } = await api.post<{ access_token: CreatedAccessToken }>('/api/v1/access-tokens', { name: name.trim(), scopes: ordered });
      setName('');
      setScopes(SCOPES.map(({ scope }) => scope));
      onCreated(data.access_token);
    },
    { staysAfterSuccess: true },
  );
  const [localError, setLocalError] = useState<{ name?: string; scopes?: string }>({});

  function toggle(scope: string, checked: boolean) {
    setLocalError(({ name }) => ({ name }));
    setScopes((current) => (checked ? [...current, scope] : current.filter((each) => each !== scope)));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    // Checked here as well as on the server, so the message names the field in plain words.
    const problems = {
      name: name.trim() === '' ? 'Give the token a name.' : undefined,
      scopes: scopes.length === 0 ? 'Choose at least one scope.' : undefined,
    };
    setLocalError(problems);
    if (problems.name !== undefined || problems.scopes !== undefined) return;
    void send();
  }

  const nameError = localError.name ?? serverProblem(error, 'name', 'Name');
  const scopesError = localError.scopes ?? serverProblem(error, 'scopes', 'Scopes');
  const showAlert = error !== undefined && nameError === undefined && scopesError === undefined;
  return (
    <form onSubmit={submit} noValidate className="token-create">
      {showAlert && <Alert kind="error">{errorMessage(error)}</Alert>}
      <Field
        label="Token name"
        name="name"
        required
        maxLength={100}
        autoComplete="off"
        placeholder="e.g. CI deploy"
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          setLocalError(({ scopes }) => ({ scopes }));
        }}
        error={nameError}
        hint="Say where it will be used, so you can tell tokens apart later."
      />
      <fieldset className="token-scopes" aria-describedby={scopesError !== undefined ? 'token-scopes-error' : undefined}>
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, label, description }) => (
          <label key={scope} className="checkbox-option">
            <input type="checkbox" name="scopes" value={scope} checked={scopes.includes(scope)} onChange={(event) => toggle(scope, event.target.checked)} />
            <span>
              <span className="checkbox-label">
                {label} <code>{scope}</code>
              </span>
              <span className="hint">{description}</span>
            </span>
          </label>
        ))}
        {scopesError !== undefined && (
          <p className="field-error" id="token-scopes-error">
            {scopesError}
          </p>
        )}
      </fieldset>
      <Button type="submit" variant="primary" busy={busy}>
        Create token
      </Button>
    </form>
  );
}

/** The server's message for a field (or an item of it, "/scopes/0"), following the field's name. */
function serverProblem(error: unknown, field: string, label: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const message = error.errors.find(({ path }) => path === `/${field}` || path.startsWith(`/${field}/`))?.message;
  return message === undefined ? undefined : `${label} ${message}.`;
}
