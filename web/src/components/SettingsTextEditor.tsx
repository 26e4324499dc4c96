import { useId } from 'react';
import { analyseSettingsText, formatBytes, formatJson } from '../settingsText';
import { Button } from './Button';

interface SettingsTextEditorProps {
  title: string;
  description: string;
  value: string;
  onChange: (value: string) => void;
  maxBytes: number;
  /** A message from the server or the form that blocks saving this field. */
  error?: string | undefined;
  changed: boolean;
}

/**
 * One settings group as a card: a text area that recognises JSON (text starting with { or [),
 * says live whether it parses, and pretty-prints it on request. Plain text is accepted as it is.
 */
export function SettingsTextEditor({ title, description, value, onChange, maxBytes, error, changed }: SettingsTextEditorProps) {
  const id = useId();
  const analysis = analyseSettingsText(value);
  const statusId = `${id}-status`;
  const errorId = `${id}-error`;
  const describedBy = [statusId, error !== undefined ? errorId : ''].filter(Boolean).join(' ');
  const tooLarge = analysis.bytes > maxBytes;

  function format() {
    const formatted = formatJson(value);
    if (formatted !== undefined) onChange(formatted);
  }

  return (
    <section className="card settings-group" aria-labelledby={`${id}-title`}>
      <div className="card-header">
        <div>
          <h2>
            <label id={`${id}-title`} htmlFor={id}>
              {title}
            </label>
            {changed && <span className="badge badge-accent settings-changed">Edited</span>}
          </h2>
          <p>{description}</p>
        </div>
        <Button onClick={format} disabled={analysis.kind !== 'json'} title="Pretty-print with two-space indentation">
          Format JSON
        </Button>
      </div>
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        spellCheck={false}
        rows={8}
        aria-invalid={analysis.kind === 'invalid-json' || error !== undefined || tooLarge}
        aria-describedby={describedBy}
        placeholder='Plain text, or JSON such as {"enabled": true}'
      />
      <div className="settings-status" id={statusId}>
        <JsonStatus analysis={analysis} />
        <span className={tooLarge ? 'settings-size settings-size-over' : 'settings-size'}>
          {formatBytes(analysis.bytes)} of {formatBytes(maxBytes)}
        </span>
      </div>
      {error !== undefined && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </section>
  );
}

function JsonStatus({ analysis }: { analysis: ReturnType<typeof analyseSettingsText> }) {
  switch (analysis.kind) {
    case 'empty':
      return <span className="muted">Empty</span>;
    case 'text':
      return <span className="muted">Plain text</span>;
    case 'json':
      return <span className="json-valid">Valid JSON</span>;
    case 'invalid-json':
      return <span className="json-invalid">Invalid JSON: {analysis.message}</span>;
  }
}
