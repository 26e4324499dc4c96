import { useMutation } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { ACCESS_TOKEN_SCOPES, type AccessTokenScope } from '@server/auth/scopes';
import { ApiError, errorMessage } from '../api/errors';
import type { CreatedAccessToken, Workspace } from '../api/types';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field, FieldErrorText } from './Field';
import { createAccessToken } from '../api/accessTokens';

export type { CreatedAccessToken } from '../api/types';

/** What people read for each scope the server knows; keyed by its list, so a new scope needs words here. Each is checked on its own: write does not imply read. */
const SCOPE_TEXT: Record<AccessTokenScope, { label: string; description: string }> = {
  'sites:read': { label: 'Read sites', description: 'List sites and read their settings.' },
  'sites:write': { label: 'Write sites', description: 'Create, change and delete sites, and run connection checks.' },
};
const SCOPES = ACCESS_TOKEN_SCOPES.map((scope) => ({ scope, ...SCOPE_TEXT[scope] }));

interface Values {
  name: string;
  scopes: string[];
  /** "" for every workspace of the person's, else the one workspace's id. */
  workspace: string;
}

const ALL_SCOPES = SCOPES.map(({ scope }) => scope);

/** Names a new token and picks what it may do. The secret comes back in the answer, this once. */
export function AccessTokenCreateForm({ workspaces, onCreated }: { workspaces: Workspace[] | undefined; onCreated: (token: CreatedAccessToken) => void }) {
  const { register, handleSubmit, reset, formState } = useForm<Values>({ defaultValues: { name: '', scopes: ALL_SCOPES, workspace: '' } });
  const workspaceFieldId = useId();
  const create = useMutation({
    mutationFn: (values: Values) =>
      createAccessToken({
        name: values.name.trim(),
        scopes: ALL_SCOPES.filter((scope) => values.scopes.includes(scope)),
        workspace_id: values.workspace === '' ? null : values.workspace,
      }),
    onSuccess: (created) => {
      reset();
      onCreated(created);
    },
  });
  const error = create.error ?? undefined;

  const nameError = formState.errors.name?.message ?? serverProblem(error, 'name', 'Name');
  const scopesError = formState.errors.scopes?.message ?? serverProblem(error, 'scopes', 'Scopes');
  const showAlert = error !== undefined && serverProblem(error, 'name', 'Name') === undefined && serverProblem(error, 'scopes', 'Scopes') === undefined;
  return (
    <form onSubmit={handleSubmit((values) => create.mutate(values))} noValidate className="token-create">
      {showAlert && <Alert kind="error">{errorMessage(error)}</Alert>}
      <Field
        label="Token name"
        required
        maxLength={100}
        autoComplete="off"
        placeholder="e.g. CI deploy"
        error={nameError}
        hint="Say where it will be used, so you can tell tokens apart later."
        {...register('name', { validate: (value) => value.trim() !== '' || 'Give the token a name.' })}
      />
      <div className="field">
        <label htmlFor={workspaceFieldId}>Workspace</label>
        <select id={workspaceFieldId} aria-describedby={`${workspaceFieldId}-hint`} {...register('workspace')}>
          <option value="">All my workspaces</option>
          {(workspaces ?? []).map((workspace) => (
            <option key={workspace.id} value={workspace.id}>
              {workspace.name}
            </option>
          ))}
        </select>
        <p className="hint" id={`${workspaceFieldId}-hint`}>
          A token limited to one workspace reaches nothing else, even if you join more later.
        </p>
      </div>
      <fieldset className="token-scopes" aria-describedby={scopesError !== undefined ? 'token-scopes-error' : undefined}>
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, label, description }) => (
          <label key={scope} className="checkbox-option">
            <input type="checkbox" value={scope} {...register('scopes', { validate: (chosen) => (Array.isArray(chosen) && chosen.length > 0) || 'Choose at least one scope.' })} />
            <span>
              <span className="checkbox-label">
                {label} <code>{scope}</code>
              </span>
              <span className="hint">{description}</span>
            </span>
          </label>
        ))}
        <FieldErrorText id="token-scopes-error" error={scopesError} />
      </fieldset>
      <Button type="submit" variant="primary" busy={create.isPending}>
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
