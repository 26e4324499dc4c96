import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { bracketMatching, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { linter, lintGutter } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useId, useRef } from 'react';
import type { SettingsField } from '@server/sites/contract';
import { schemaCompletion, schemaDiagnostics } from './jsonSchemaSupport';
import { byteLength, formatBytes, formatJson, readGroup } from '../settingsText';
import { Button } from '../components/Button';
import { FieldErrorText } from '../components/Field';

interface SettingsTextEditorProps {
  field: SettingsField;
  /** The accessible name of the text box, e.g. "Chat widget JSON". */
  label: string;
  value: string;
  onChange: (value: string) => void;
  maxBytes: number;
  /** A message from the server or the form that blocks saving this group. */
  error?: string | undefined;
  /** A rule inside the group is broken (the status line names it): the editor is marked as needing attention. */
  invalid?: boolean;
  /** The text can be read, selected and copied, not changed. */
  readOnly?: boolean;
}

/**
 * A settings group's text in CodeMirror: JSON syntax and the group's schema are checked as you
 * type (marks in the text, and a summary under it), Ctrl+Space completes property names and allowed
 * values, and Tab leaves the editor so the keyboard can move on.
 */
export function SettingsTextEditor({ field, label, value, onChange, maxBytes, error, invalid = false, readOnly = false }: SettingsTextEditorProps) {
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const statusId = `${id}-status`;
  const errorId = `${id}-error`;

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    // CodeMirror writes its styles at run time. In the document they would be a <style> element,
    // which the content security policy (style-src 'self') refuses; inside a shadow root they are
    // constructed style sheets, which it allows. The dashboard's colour variables still reach in.
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
    root.replaceChildren();
    const parent = document.createElement('div');
    root.append(parent);
    const editor = new EditorView({
      parent,
      root,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          closeBrackets(),
          bracketMatching(),
          json(),
          syntaxHighlighting(jsonHighlightStyle),
          lintGutter(),
          linter(jsonParseLinter(), { delay: 250 }),
          linter((current) => schemaDiagnostics(field, current.state), { delay: 250 }),
          autocompletion({ override: [schemaCompletion(field)] }),
          keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
          EditorView.lineWrapping,
          // Still focusable, so keyboard users can scroll, select and copy; only edits are refused.
          EditorState.readOnly.of(readOnly),
          editorTheme,
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-describedby': statusId, 'aria-multiline': 'true', ...(readOnly ? { 'aria-readonly': 'true' } : {}) }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChangeRef.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is built once; later values arrive through the effect below.
  }, [field, label, statusId, readOnly]);

  // A value set from outside (the form, Discard, a reload) replaces the text in the editor.
  useEffect(() => {
    const editor = view.current;
    if (editor === null) return;
    const current = editor.state.doc.toString();
    if (current !== value) editor.dispatch({ changes: { from: 0, to: current.length, insert: value } });
  }, [value]);

  const bytes = byteLength(value);
  const reading = readGroup(field, value);
  const tooLarge = bytes > maxBytes;

  function format() {
    const formatted = formatJson(value);
    if (formatted !== undefined) onChange(formatted);
  }

  return (
    <div className="json-editor">
      <div className={`json-editor-host ${error !== undefined || invalid || tooLarge ? 'json-editor-invalid' : ''}`} ref={host} />
      <div className="settings-status" id={statusId}>
        <span className={reading.kind === 'matches' || reading.kind === 'empty' ? 'json-valid' : 'json-invalid'}>{statusText(reading)}</span>
        <span className={tooLarge ? 'settings-size settings-size-over' : 'settings-size'}>
          {formatBytes(bytes)} of {formatBytes(maxBytes)}
        </span>
        <Button variant="ghost" onClick={format} disabled={readOnly || reading.kind === 'not-json' || reading.kind === 'empty'} title="Pretty-print with two-space indentation">
          Format JSON
        </Button>
      </div>
      <FieldErrorText id={errorId} error={error} />
    </div>
  );
}

/**
 * JSON's colours from the dashboard's palette (styles.css, --syntax-*), so the dark theme gets
 * dark-theme colours: CodeMirror's default style is written for a light background only.
 */
const jsonHighlightStyle = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--syntax-property)' },
  { tag: tags.string, color: 'var(--syntax-string)' },
  { tag: tags.number, color: 'var(--syntax-number)' },
  { tag: [tags.bool, tags.null, tags.keyword], color: 'var(--syntax-keyword)' },
  { tag: [tags.punctuation, tags.separator, tags.brace, tags.squareBracket], color: 'var(--syntax-punctuation)' },
  { tag: tags.invalid, color: 'var(--danger)' },
]);

/** The editor's look, from the dashboard's colour variables, so light and dark themes apply. */
const editorTheme = EditorView.theme({
  '&': { minHeight: '12rem', maxHeight: '32rem', fontSize: '0.85rem', backgroundColor: 'var(--surface)', color: 'var(--text)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--mono)', minHeight: '12rem' },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-gutters': { backgroundColor: 'var(--bg)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border-strong)', borderRadius: '6px' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--accent-soft)', color: 'var(--accent)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--danger)' },
  '.cm-lintRange-error': { textDecoration: 'underline wavy var(--danger)' },
  '.cm-completionDetail': { color: 'var(--muted)', marginLeft: '0.5rem' },
});

function statusText(reading: ReturnType<typeof readGroup>): string {
  switch (reading.kind) {
    case 'empty':
      return 'Empty: nothing set.';
    case 'matches':
      return 'Valid: matches the settings\' shape.';
    case 'not-json':
      return `Not valid JSON: ${reading.reason}.`;
    case 'not-object':
      return 'Valid JSON, but not an object of settings ({ … }).';
    case 'breaks-rules':
      return `Valid JSON that breaks ${reading.problems.length === 1 ? 'a rule' : `${reading.problems.length} rules`}: ${reading.problems.map((problem) => `${problem.label}: ${problem.message}`).join(' ')}`;
  }
}
