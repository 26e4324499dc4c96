import { type ReactNode, useId } from 'react';
import type { FieldError } from '../api/errors';
import { AUTH_TYPES, type AuthType } from '@server/sites/contract';
import type { PartnerDraft } from '../api/types';
import { messageFor, type TokenChange } from '../siteDraft';
import { AccessTokenField } from './AccessTokenField';
import { Field, FieldErrorText } from './Field';
import { TagInput } from './TagInput';

interface PartnerSettingsFormProps {
  draft: PartnerDraft;
  onChange: (patch: Partial<PartnerDraft>) => void;
  tokenConfigured: boolean;
  tokenChange: TokenChange;
  onTokenChange: (change: TokenChange) => void;
  errors: FieldError[];
}

// Keyed by the server's AuthType: a type added there does not compile here until it has a label.
const AUTH_TYPE_LABELS: Record<AuthType, { label: string; hint: string }> = {
  none: { label: 'None', hint: 'No Authorization header is sent.' },
  bearer: { label: 'Bearer', hint: 'Sent as Authorization: Bearer <access token>.' },
  token: { label: 'Token', hint: 'Sent as Authorization: Token <access token>.' },
};

/** The partner integration's own settings; the connection check sits beside it (PartnerCheck). */
export function PartnerSettingsForm({ draft, onChange, tokenConfigured, tokenChange, onTokenChange, errors }: PartnerSettingsFormProps) {
  const error = (field: string) => messageFor(errors, `/partner_settings/${field}`);
  return (
    <>
      <fieldset className="partner-switches">
        <legend className="visually-hidden">Integration switches</legend>
        <Switch label="Integration enabled" checked={draft.enabled} onChange={(enabled) => onChange({ enabled })} hint="Use the partner service for this site." />
        <Switch label="Read enabled" checked={draft.read_enabled} onChange={(read_enabled) => onChange({ read_enabled })} hint="Let the assistant read from the partner." />
        <Switch label="Write enabled" checked={draft.write_enabled} onChange={(write_enabled) => onChange({ write_enabled })} hint="Let the assistant write to the partner." />
      </fieldset>

      <div className="form-grid">
        <Field
          label="Base URL"
          type="url"
          inputMode="url"
          placeholder="https://partner.example.com/"
          value={draft.base_url}
          onChange={(event) => onChange({ base_url: event.target.value })}
          error={error('base_url')}
          hint="The partner's HTTP API. Leave empty if you only use MCP."
        />
        <Field
          label="MCP URL"
          type="url"
          inputMode="url"
          placeholder="https://partner.example.com/mcp"
          value={draft.mcp_url}
          onChange={(event) => onChange({ mcp_url: event.target.value })}
          error={error('mcp_url')}
          hint="The partner's MCP endpoint (Streamable HTTP)."
        />
        <AuthTypeSelect value={draft.auth_type} onChange={(auth_type) => onChange({ auth_type })} error={error('auth_type')} />
      </div>
      <div className="form-grid">
        <Field label="Project ID" value={draft.project_id} maxLength={200} onChange={(event) => onChange({ project_id: event.target.value })} error={error('project_id')} />
        <Field
          label="Widget project ID"
          value={draft.widget_project_id}
          maxLength={200}
          onChange={(event) => onChange({ widget_project_id: event.target.value })}
          error={error('widget_project_id')}
        />
      </div>

      <AccessTokenField configured={tokenConfigured} change={tokenChange} onChange={onTokenChange} error={error('access_token')} />

      <div className="form-grid">
        <TagInput
          label="Collections"
          values={draft.collections}
          onChange={(collections) => onChange({ collections })}
          error={error('collections')}
          hint="Partner collections the assistant may use. Enter or comma adds one."
        />
        <TagInput
          label="Widget search sources"
          values={draft.widget_search_sources}
          onChange={(widget_search_sources) => onChange({ widget_search_sources })}
          error={error('widget_search_sources')}
          hint="Sources the chat widget searches. Enter or comma adds one."
        />
      </div>
    </>
  );
}

function Switch({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (checked: boolean) => void; hint: ReactNode }) {
  const hintId = useId();
  return (
    <div className="partner-switch">
      <label className="switch">
        <input type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} aria-describedby={hintId} />
        {label}
      </label>
      <p className="hint" id={hintId}>
        {hint}
      </p>
    </div>
  );
}

function AuthTypeSelect({ value, onChange, error }: { value: AuthType; onChange: (value: AuthType) => void; error: string | undefined }) {
  const id = useId();
  const describedBy = [`${id}-hint`, error !== undefined ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>Auth type</label>
      <select
        id={id}
        value={value}
        // Only the server's own values are offered, so only they can be sent.
        onChange={(event) => onChange(AUTH_TYPES.find((type) => type === event.target.value) ?? value)}
        aria-invalid={error !== undefined}
        aria-describedby={describedBy}
      >
        {AUTH_TYPES.map((type) => (
          <option key={type} value={type}>
            {AUTH_TYPE_LABELS[type].label}
          </option>
        ))}
      </select>
      <p className="hint" id={`${id}-hint`}>
        {AUTH_TYPE_LABELS[value].hint}
      </p>
      <FieldErrorText id={`${id}-error`} error={error} />
    </div>
  );
}
