import { type KeyboardEvent, lazy, Suspense, useId, useRef, useState } from 'react';
import { SETTINGS_MAX_BYTES, type SettingsField } from '@server/sites/contract';
import { SETTINGS_SCHEMAS } from '@server/sites/settings-schemas';
import type { FieldError } from '../api/errors';
import { Alert } from '../components/Alert';
import { messageFor } from '../siteDraft';
import { explainReading, readGroup } from '../settingsText';
import { GroupForm } from './GroupForm';

// CodeMirror is most of the editor's weight and only the JSON tab needs it: it loads on first use.
const SettingsTextEditor = lazy(async () => ({ default: (await import('./SettingsTextEditor')).SettingsTextEditor }));

interface SettingsGroupCardProps {
  field: SettingsField;
  text: string;
  savedText: string;
  onChange: (text: string) => void;
  errors: FieldError[];
  /** Shown, not edited: the person's role does not allow changing the site. */
  readOnly?: boolean;
}

type Tab = 'form' | 'json';

/**
 * A settings group with two views of the same text: its form, and its JSON for anything the form
 * does not show. Text the form cannot show (not JSON, or JSON that breaks the shape) opens in the
 * JSON view with the reason, and stays as stored until the person edits it.
 */
export function SettingsGroupCard({ field, text, savedText, onChange, errors, readOnly = false }: SettingsGroupCardProps) {
  const id = useId();
  const schema = SETTINGS_SCHEMAS[field];
  const reading = readGroup(field, text);
  // Stored text that does not match opens as JSON. Once open, the form stays open while its own
  // fields break a rule (each shows why); only text that is no object of settings shuts it.
  const formCanShow = reading.kind !== 'not-json' && reading.kind !== 'not-object';
  const [chosen, setChosen] = useState<Tab>(reading.kind === 'empty' || reading.kind === 'matches' ? 'form' : 'json');
  const tab: Tab = formCanShow ? chosen : 'json';
  const explanation = explainReading(reading);
  const changed = text !== savedText;
  const tabs = useRef<Record<Tab, HTMLButtonElement | null>>({ form: null, json: null });
  const groupError = messageFor(errors.filter((error) => error.path === `/${field}`), `/${field}`);
  // Any error in the group, on it or inside it (the JSON view's status line says which): the editor is marked so a refused save focuses it.
  const groupInvalid = messageFor(errors, `/${field}`) !== undefined;

  function choose(next: Tab) {
    if (next === 'form' && !formCanShow) return;
    setChosen(next);
  }

  // Arrow keys move between the two tabs, as in every tab list.
  function onTabKey(event: KeyboardEvent<HTMLButtonElement>) {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    const next: Tab = tab === 'form' ? 'json' : 'form';
    if (next === 'form' && !formCanShow) return;
    choose(next);
    tabs.current[next]?.focus();
  }

  return (
    <section className="card settings-group" aria-labelledby={`${id}-title`}>
      <div className="card-header">
        <div>
          <h3 id={`${id}-title`}>
            {schema.title}
            {changed && <span className="badge badge-accent settings-changed">Edited</span>}
          </h3>
          <p>{schema.description}</p>
        </div>
        <div className="tabs" role="tablist" aria-label={`${schema.title}: view`}>
          {(['form', 'json'] as const).map((each) => (
            <button
              key={each}
              ref={(element) => {
                tabs.current[each] = element;
              }}
              type="button"
              role="tab"
              id={`${id}-tab-${each}`}
              aria-controls={`${id}-panel`}
              aria-selected={tab === each}
              tabIndex={tab === each ? 0 : -1}
              disabled={each === 'form' && !formCanShow}
              className="tab"
              onClick={() => choose(each)}
              onKeyDown={onTabKey}
            >
              {each === 'form' ? 'Form' : 'JSON'}
            </button>
          ))}
        </div>
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${tab}`}>
        {/* Once edited, the JSON view's own status line says what does not match yet. */}
        {explanation !== undefined && !changed && (
          <Alert kind="warning" title="Stored in a shape the form cannot show">
            <p>{explanation}</p>
          </Alert>
        )}
        {tab === 'form' ? (
          // A disabled fieldset disables every control of the form at once, the list buttons included.
          <fieldset disabled={readOnly}>
            <GroupForm field={field} text={text} savedText={savedText} onChange={onChange} errors={errors} />
          </fieldset>
        ) : (
          <Suspense fallback={<p className="muted">Loading the JSON editor…</p>}>
            <SettingsTextEditor field={field} label={`${schema.title} JSON`} value={text} onChange={onChange} maxBytes={SETTINGS_MAX_BYTES} error={groupError} invalid={groupInvalid} readOnly={readOnly} />
          </Suspense>
        )}
        {tab === 'form' && groupError !== undefined && <p className="field-error">{groupError}</p>}
      </div>
    </section>
  );
}
