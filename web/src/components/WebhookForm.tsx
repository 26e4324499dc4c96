import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { WEBHOOK_DESCRIPTION_MAX_LENGTH, WEBHOOK_URL_MAX_LENGTH, type WebhookEventType } from '@server/webhooks/contract';
import { ApiError, errorMessage } from '../api/errors';
import { asSentence } from '../format';
import { WEBHOOK_EVENTS } from '../webhookText';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field, FieldErrorText } from './Field';

export interface WebhookFormValues {
  url: string;
  description: string;
  events: WebhookEventType[];
}

interface WebhookFormProps {
  initial: WebhookFormValues;
  submitLabel: string;
  /** Sends the values; a refusal is thrown and shown next to the field it names. */
  onSubmit: (values: WebhookFormValues) => Promise<void>;
  onCancel?: () => void;
  /** Tells fields of two forms on one screen apart. */
  idPrefix: string;
}

/** The URL, a description and the events of a webhook: for adding one, and for changing one. */
export function WebhookForm({ initial, submitLabel, onSubmit, onCancel, idPrefix }: WebhookFormProps) {
  const { register, handleSubmit, reset, formState } = useForm<WebhookFormValues>({ defaultValues: initial });
  const send = useMutation({ mutationFn: onSubmit, onSuccess: () => reset(initial) });
  const error = send.error ?? undefined;
  const eventsErrorId = `${idPrefix}-events-error`;

  function submit(values: WebhookFormValues) {
    setEditedSince(new Set());
    send.mutate({ url: values.url.trim(), description: values.description.trim(), events: WEBHOOK_EVENTS.map(({ type }) => type).filter((type) => values.events.includes(type)) });
  }

  // The server's word on what was sent stops applying once the field is edited.
  const [editedSince, setEditedSince] = useState<ReadonlySet<string>>(new Set());
  const edited = (field: keyof WebhookFormValues) => () => setEditedSince((current) => (current.has(field) ? current : new Set([...current, field])));
  const serverProblemOf = (field: keyof WebhookFormValues) => (editedSince.has(field) ? undefined : serverProblem(error, field));
  const urlError = formState.errors.url?.message ?? serverProblemOf('url');
  const descriptionError = serverProblemOf('description');
  const eventsError = formState.errors.events?.message ?? serverProblemOf('events');
  // A refusal that names a field is said there (until the field is edited); any other above the form.
  const namesAField = (['url', 'description', 'events'] as const).some((field) => serverProblem(error, field) !== undefined);
  const showAlert = error !== undefined && !namesAField && formState.errors.url === undefined && formState.errors.events === undefined;
  return (
    <form onSubmit={handleSubmit(submit)} noValidate className="webhook-form">
      {showAlert && <Alert kind="error">{errorMessage(error)}</Alert>}
      <Field
        id={`${idPrefix}-url`}
        label="Endpoint URL"
        type="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder="https://example.com/siteward-events"
        maxLength={WEBHOOK_URL_MAX_LENGTH}
        required
        error={urlError}
        hint="Siteward POSTs each event here as JSON, signed with the webhook’s secret. Use https; redirects are not followed."
        {...register('url', { validate: (value) => /^https?:\/\/\S+$/i.test(value.trim()) || 'Enter the full address, starting with https://.', onChange: edited('url') })}
      />
      <Field
        id={`${idPrefix}-description`}
        label="Description (optional)"
        autoComplete="off"
        maxLength={WEBHOOK_DESCRIPTION_MAX_LENGTH}
        placeholder="e.g. Redeploy the widget"
        error={descriptionError}
        {...register('description', { onChange: edited('description') })}
      />
      <fieldset className="token-scopes" aria-describedby={eventsError !== undefined ? eventsErrorId : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map(({ type, label, description }) => (
          <label key={type} className="checkbox-option">
            <input type="checkbox" value={type} {...register('events', { validate: (chosen) => (Array.isArray(chosen) && chosen.length > 0) || 'Choose at least one event.', onChange: edited('events') })} />
            <span>
              <span className="checkbox-label">
                {label} <code>{type}</code>
              </span>
              <span className="hint">{description}</span>
            </span>
          </label>
        ))}
        <FieldErrorText id={eventsErrorId} error={eventsError} />
      </fieldset>
      <div className="row">
        <Button type="submit" variant="primary" busy={send.isPending}>
          {submitLabel}
        </Button>
        {onCancel !== undefined && <Button onClick={onCancel}>Cancel</Button>}
      </div>
    </form>
  );
}

const FIELD_LABELS = { url: 'The URL', description: 'The description', events: 'Events' } as const;

/** The server's reason for refusing a field (a refused address, too long…), as a sentence naming it. */
function serverProblem(error: unknown, field: keyof typeof FIELD_LABELS): string | undefined {
  const message = error instanceof ApiError ? error.fieldMessage(field) : undefined;
  return message === undefined ? undefined : asSentence(`${FIELD_LABELS[field]} ${message}`);
}
