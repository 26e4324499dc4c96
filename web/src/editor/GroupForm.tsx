// One settings group as real form fields, drawn from its JSON Schema: text, choices, switches,
// numbers, colours, nested groups and lists of entries. react-hook-form holds the fields; every
// change is laid over the group's text (applyFormValues), so keys the form does not show survive.
import { useEffect, useId, useRef } from 'react';
import { Controller, type FieldErrors, type Resolver, useFieldArray, useForm, type UseFormReturn } from 'react-hook-form';
import type { SettingsField } from '@server/sites/contract';
import { SETTINGS_ENUM_LABELS, SETTINGS_SCHEMAS } from '@server/sites/settings-schemas';
import type { FieldError } from '../api/errors';
import { Button } from '../components/Button';
import { ColorField } from '../components/ColorField';
import { applyFormValues, formStartValues, formValuesOf, messageFor } from '../siteDraft';
import { problemsIn, type SettingsObject } from '../settingsText';
import { FieldErrorText } from '../components/Field';

/** The part of a JSON Schema the forms read. */
export interface SchemaNode {
  title?: string;
  description?: string;
  type?: string;
  enum?: readonly string[];
  pattern?: string;
  format?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  required?: readonly string[];
}

const COLOR_PATTERN_SOURCE = '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$';
/** Longer limits than this are for paragraphs, not one line (addresses and URLs excepted). */
const MULTILINE_FROM = 300;

interface GroupFormProps {
  field: SettingsField;
  /** The group's text in the draft. */
  text: string;
  /** The group's text as saved: a form edit that comes back to it gives back those very bytes. */
  savedText: string;
  onChange: (text: string) => void;
  /** Errors the editor holds (the server's, or its own at save time), with the site's paths. */
  errors: FieldError[];
}

type Form = UseFormReturn<SettingsObject>;

export function GroupForm({ field, text, savedText, onChange, errors }: GroupFormProps) {
  const base = useRef(text);
  const emitted = useRef(text);
  const resolver: Resolver<SettingsObject> = (values) => {
    const merged = formValuesOf(field, applyFormValues(field, base.current, values)) ?? values;
    const problems = problemsIn(field, merged);
    if (problems.length === 0) return { values, errors: {} };
    const found: Record<string, unknown> = {};
    for (const problem of problems) setAt(found, problem.pointer.split('/').slice(1), { type: 'schema', message: problem.message });
    return { values: {}, errors: found as FieldErrors<SettingsObject> };
  };
  const form = useForm<SettingsObject>({ defaultValues: formStartValues(field, formValuesOf(field, text) ?? {}), mode: 'onTouched', resolver });

  // Text changed elsewhere (the JSON tab, Discard, a reload): the fields start again from it.
  useEffect(() => {
    if (text === emitted.current) return;
    base.current = text;
    emitted.current = text;
    form.reset(formStartValues(field, formValuesOf(field, text) ?? {}));
  }, [text, field, form]);

  const emit = (values: SettingsObject) => {
    const next = applyFormValues(field, base.current, values, savedText);
    if (next === emitted.current) return;
    emitted.current = next;
    onChange(next);
  };
  const emitRef = useRef(emit);
  emitRef.current = emit;
  useEffect(() => {
    const subscription = form.watch((values, { type }) => {
      if (type === 'change') emitRef.current(values as SettingsObject);
    });
    return () => subscription.unsubscribe();
  }, [form]);

  const schema = SETTINGS_SCHEMAS[field] as SchemaNode;
  return (
    <div className="group-form form-grid">
      {Object.entries(schema.properties ?? {}).map(([key, node]) => (
        <SchemaField key={key} form={form} name={key} pointer={`/${key}`} node={node} groupPath={`/${field}`} errors={errors} onListChange={() => emit(form.getValues())} />
      ))}
    </div>
  );
}

function setAt(target: Record<string, unknown>, segments: string[], leaf: unknown): void {
  let node = target;
  segments.forEach((segment, index) => {
    if (index === segments.length - 1) {
      node[segment] = leaf;
      return;
    }
    const next = node[segment];
    node[segment] = typeof next === 'object' && next !== null ? next : /^\d+$/.test(segments[index + 1] ?? '') ? [] : {};
    node = node[segment] as Record<string, unknown>;
  });
}

function errorAt(errors: unknown, name: string): string | undefined {
  let node = errors;
  for (const segment of name.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  const message = (node as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

interface SchemaFieldProps {
  form: Form;
  /** react-hook-form's dotted name, e.g. "handoff.email" or "sources.2.url". */
  name: string;
  /** The JSON Pointer inside the group, e.g. "/handoff/email". */
  pointer: string;
  node: SchemaNode;
  groupPath: string;
  errors: FieldError[];
  onListChange: () => void;
  required?: boolean;
}

function SchemaField({ form, name, pointer, node, groupPath, errors, onListChange, required = false }: SchemaFieldProps) {
  const id = useId();
  const error = errorAt(form.formState.errors, name) ?? messageFor(errors, `${groupPath}${pointer}`);
  const label = node.title ?? name;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  // The site's path of this setting, by which a jump from the command palette finds it (editorNavigation.ts).
  const setting = `${groupPath}${pointer}`;
  const describedBy = [node.description !== undefined ? hintId : '', error !== undefined ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const hint = node.description !== undefined && (
    <p className="hint" id={hintId}>
      {node.description}
    </p>
  );
  const errorLine = <FieldErrorText id={errorId} error={error} />;

  if (node.type === 'object') {
    return (
      <fieldset className="group-fieldset field-wide" data-setting={setting}>
        <legend>{label}</legend>
        {node.description !== undefined && <p className="hint">{node.description}</p>}
        <div className="form-grid">
          {Object.entries(node.properties ?? {}).map(([key, child]) => (
            <SchemaField key={key} form={form} name={`${name}.${key}`} pointer={`${pointer}/${key}`} node={child} groupPath={groupPath} errors={errors} onListChange={onListChange} required={node.required?.includes(key) === true} />
          ))}
        </div>
      </fieldset>
    );
  }
  if (node.type === 'array' && node.items?.type === 'object') {
    return <EntryList form={form} name={name} pointer={pointer} node={node} groupPath={groupPath} errors={errors} onListChange={onListChange} />;
  }
  if (node.type === 'array' && node.items?.enum !== undefined) {
    return (
      <fieldset className="group-fieldset field-wide" aria-describedby={describedBy} data-setting={setting}>
        <legend>{label}</legend>
        {hint}
        <div className="choice-list">
          {node.items.enum.map((value) => (
            <label key={value} className="checkbox">
              <input type="checkbox" value={value} {...form.register(name)} />
              {SETTINGS_ENUM_LABELS[value] ?? value}
            </label>
          ))}
        </div>
        {errorLine}
      </fieldset>
    );
  }
  // An on/off setting is a switch, as in the Integration section; lists of choices stay checkboxes.
  if (node.type === 'boolean') {
    return (
      <div className="field field-wide" data-setting={setting}>
        <label className="switch">
          <input type="checkbox" aria-describedby={describedBy} aria-invalid={error !== undefined} {...form.register(name)} />
          {label}
        </label>
        {hint}
        {errorLine}
      </div>
    );
  }
  if (node.type === 'string' && node.pattern === COLOR_PATTERN_SOURCE) {
    return (
      <Controller
        control={form.control}
        name={name}
        render={({ field }) => (
          <div className="setting-anchor" data-setting={setting}>
            <ColorField
            label={label}
            value={typeof field.value === 'string' ? field.value : ''}
            onChange={field.onChange}
            onBlur={field.onBlur}
            hint={node.description}
            error={error}
            optional
            />
          </div>
        )}
      />
    );
  }
  const common = {
    id,
    'aria-describedby': describedBy,
    'aria-invalid': error !== undefined,
    'aria-required': required || undefined,
  };
  let control;
  if (node.enum !== undefined) {
    control = (
      <select {...common} {...form.register(name)}>
        <option value="">{required ? 'Choose…' : 'Not set'}</option>
        {node.enum.map((value) => (
          <option key={value} value={value}>
            {SETTINGS_ENUM_LABELS[value] ?? value}
          </option>
        ))}
      </select>
    );
  } else if (node.type === 'number' || node.type === 'integer') {
    control = (
      <input
        {...common}
        type="number"
        inputMode={node.type === 'integer' ? 'numeric' : 'decimal'}
        min={node.minimum}
        max={node.maximum}
        step={node.type === 'integer' ? 1 : 0.1}
        {...form.register(name, { setValueAs: (value: unknown) => (value === '' || value === null || value === undefined ? undefined : Number(value)) })}
      />
    );
  } else if ((node.maxLength ?? 0) > MULTILINE_FROM && node.format === undefined) {
    control = <textarea {...common} rows={node.maxLength !== undefined && node.maxLength > 2000 ? 8 : 4} maxLength={node.maxLength} {...form.register(name)} />;
  } else {
    const type = node.format === 'email' ? 'email' : node.format === 'uri' ? 'url' : 'text';
    control = <input {...common} type={type} maxLength={node.maxLength} autoComplete="off" spellCheck={type === 'text'} {...form.register(name)} />;
  }
  const wide = (node.maxLength ?? 0) > MULTILINE_FROM;
  return (
    <div className={`field ${wide ? 'field-wide' : ''}`} data-setting={setting}>
      <label htmlFor={id}>
        {label}
        {required && <span className="required-mark"> (required)</span>}
      </label>
      {control}
      {hint}
      {errorLine}
    </div>
  );
}

/** A list of entries (knowledge sources): each a small form of its own, added and removed in place. */
function EntryList({ form, name, pointer, node, groupPath, errors, onListChange }: Omit<SchemaFieldProps, 'required'>) {
  const list = useFieldArray({ control: form.control, name: name as never });
  const item = node.items ?? {};
  const itemTitle = item.title ?? 'Entry';
  const limit = node.maxItems ?? Number.POSITIVE_INFINITY;
  const error = messageFor(errors, `${groupPath}${pointer}`);
  const change = (update: () => void) => {
    update();
    // Adding or removing is not a keystroke: the form reports it itself.
    window.queueMicrotask(onListChange);
  };
  return (
    <fieldset className="group-fieldset entry-list field-wide" data-setting={`${groupPath}${pointer}`}>
      <legend>{node.title ?? name}</legend>
      {node.description !== undefined && <p className="hint">{node.description}</p>}
      {list.fields.length === 0 && <p className="muted">None yet.</p>}
      <ol className="entries">
        {list.fields.map((entry, index) => (
          <li key={entry.id} className="entry">
            <fieldset className="group-fieldset">
              <legend>
                {itemTitle} {index + 1}
              </legend>
              <div className="form-grid">
                {Object.entries(item.properties ?? {}).map(([key, child]) => (
                  <SchemaField
                    key={key}
                    form={form}
                    name={`${name}.${index}.${key}`}
                    pointer={`${pointer}/${index}/${key}`}
                    node={child}
                    groupPath={groupPath}
                    errors={errors}
                    onListChange={onListChange}
                    required={item.required?.includes(key) === true}
                  />
                ))}
              </div>
              <Button variant="ghost" onClick={() => change(() => list.remove(index))}>
                Remove {itemTitle.toLowerCase()} {index + 1}
              </Button>
            </fieldset>
          </li>
        ))}
      </ol>
      {error !== undefined && <p className="field-error">{error}</p>}
      <Button disabled={list.fields.length >= limit} onClick={() => change(() => list.append(newEntry(item) as never))}>
        Add {itemTitle.toLowerCase()}
      </Button>
    </fieldset>
  );
}

/** A new entry: the first choice of each list, switches on, text empty for the person to fill. */
function newEntry(item: SchemaNode): SettingsObject {
  const entry: SettingsObject = {};
  for (const [key, child] of Object.entries(item.properties ?? {})) {
    if (child.enum !== undefined) entry[key] = child.enum[0];
    else if (child.type === 'boolean') entry[key] = true;
    else entry[key] = '';
  }
  return entry;
}
