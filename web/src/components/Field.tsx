import { type InputHTMLAttributes, type ReactNode, useId, useLayoutEffect } from 'react';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  /** The server's (or the form's) message for this field; marks the input invalid. */
  error?: string | undefined;
  hint?: ReactNode;
}

/** A labelled input with its hint and error tied to it for screen readers. */
export function Field({ label, error, hint, id, className, autoFocus, ...input }: FieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  // Focused as it appears, as React does with autoFocus. Preact (the signed-out document) would only
  // write the attribute, which a browser follows for a page's first field alone, not for a step's.
  useLayoutEffect(() => {
    if (autoFocus === true) document.getElementById(inputId)?.focus();
    // On appearing only, as autoFocus: a later change of the prop moves no focus.
  }, []);
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;
  const describedBy = [hint !== undefined ? hintId : '', error !== undefined ? errorId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} aria-invalid={error !== undefined} aria-describedby={describedBy} {...input} />
      {hint !== undefined && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <FieldErrorText id={errorId} error={error} />
    </div>
  );
}

/**
 * A field's error, under the field: the input names it in aria-describedby by this id, so a screen
 * reader reads it with the field. Nothing when there is no error.
 */
export function FieldErrorText({ id, error }: { id: string; error: string | undefined }) {
  if (error === undefined) return null;
  return (
    <p className="field-error" id={id}>
      {error}
    </p>
  );
}
