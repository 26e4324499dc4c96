import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { queryKeys } from '../queryKeys';
import { ApiError, errorMessage } from '../api/errors';
import type { Site } from '../api/types';
import { NAME_MAX_LENGTH } from '@server/sites/contract';
import { COLOR_PATTERN } from '../color';
import { Alert } from './Alert';
import { Button } from './Button';
import { ColorField } from './ColorField';
import { Field } from './Field';
import { ModalDialog } from './ModalDialog';
import { can, defaultWorkspaceForNewSite } from '../workspaceAccess';
import type { Workspace } from '../workspaces';
import { createSite } from '../api/sites';

const DEFAULT_COLOR = '#4f46e5';

interface NewSiteDialogProps {
  open: boolean;
  /** The person's workspaces; undefined while loading (the site then goes to their personal one). */
  workspaces: Workspace[] | undefined;
  /** The workspace the list shows, where the site goes by default; null for all of them. */
  selectedWorkspaceId: string | null;
  onClose: () => void;
  onCreated: (site: Site) => void;
}

interface Values {
  name: string;
  color: string;
  /** '' leaves the choice to the server: the person's personal workspace. */
  workspaceId: string;
}

/** A modal form for the two things a new site needs; everything else is set in its editor. */
export function NewSiteDialog({ open, workspaces, selectedWorkspaceId, onClose, onCreated }: NewSiteDialogProps) {
  const workspaceFieldId = useId();
  const queryClient = useQueryClient();
  const creatable = (workspaces ?? []).filter((workspace) => can(workspace.role, 'site.create'));
  const startingWorkspace = workspaces === undefined ? '' : (defaultWorkspaceForNewSite(workspaces, selectedWorkspaceId)?.id ?? '');
  const { register, control, handleSubmit, reset, formState } = useForm<Values>({ defaultValues: { name: '', color: DEFAULT_COLOR, workspaceId: startingWorkspace } });
  const create = useMutation({
    mutationFn: async (values: Values) => {
      const body = { name: values.name.trim(), color: values.color, ...(values.workspaceId === '' ? {} : { workspace_id: values.workspaceId }) };
      return createSite(body);
    },
    onSuccess: (site) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
      onCreated(site);
    },
  });
  const resetMutation = create.reset;

  const startBlank = () => {
    reset({ name: '', color: DEFAULT_COLOR, workspaceId: startingWorkspace });
    resetMutation();
  };

  const serverError = create.error instanceof ApiError ? create.error : undefined;
  const nameError = formState.errors.name?.message ?? serverError?.fieldMessage('name');
  const colorError = formState.errors.color?.message ?? serverError?.fieldMessage('color');
  const generalError = create.error !== null && serverError?.fieldMessage('name') === undefined && serverError?.fieldMessage('color') === undefined ? errorMessage(create.error) : undefined;
  const busy = create.isPending;

  return (
    <ModalDialog
      open={open}
      title="New site"
      onOpen={startBlank}
      onCancel={() => {
        if (!busy) onClose();
      }}
    >
      <form onSubmit={handleSubmit((values) => create.mutate(values))} noValidate>
        <p className="muted">Name it and pick a colour; you can set everything else in its editor.</p>
        {generalError !== undefined && <Alert kind="error">{generalError}</Alert>}
        <Field
          label="Site name"
          maxLength={NAME_MAX_LENGTH}
          required
          autoFocus
          error={nameError}
          {...register('name', { validate: (value) => value.trim() !== '' || 'Enter a name.', onChange: () => create.reset() })}
        />
        <Controller
          control={control}
          name="color"
          rules={{ validate: (value) => COLOR_PATTERN.test(value) || 'Use #rgb or #rrggbb, e.g. #4f46e5.' }}
          render={({ field }) => (
            <ColorField
              label="Colour"
              value={field.value}
              onChange={(value) => {
                field.onChange(value);
                create.reset();
              }}
              error={colorError}
            />
          )}
        />
        {creatable.length > 1 && (
          <div className="field">
            <label htmlFor={workspaceFieldId}>Workspace</label>
            <select id={workspaceFieldId} {...register('workspaceId', { onChange: () => create.reset() })}>
              {creatable.map((workspace) => (
                <option key={workspace.id} value={workspace.id}>
                  {workspace.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="dialog-actions">
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy}>
            Create site
          </Button>
        </div>
      </form>
    </ModalDialog>
  );
}
