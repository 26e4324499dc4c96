// A settings group is stored as text. The dashboard reads it against the group's documented shape
// (src/sites/settings-schemas.ts): empty, a matching JSON object the forms can edit, or text that
// does not match, with the reasons in words people read. The validators are compiled from the
// schemas when the dashboard is built (web/settingsValidatorsPlugin.ts).
import type { ErrorObject } from 'ajv';
import * as validators from 'virtual:settings-validators';
import type { SettingsField } from '@server/sites/contract';
import { SETTINGS_ENUM_LABELS, SETTINGS_SCHEMAS } from '@server/sites/settings-schemas';

export type SettingsObject = Record<string, unknown>;

/** One rule the text breaks: where (a JSON Pointer inside the group), the field's name, and why. */
export interface SettingsProblem {
  pointer: string;
  label: string;
  message: string;
}

export type GroupReading =
  | { kind: 'empty' }
  | { kind: 'matches'; value: SettingsObject }
  | { kind: 'not-json'; reason: string }
  | { kind: 'not-object'; value: unknown }
  | { kind: 'breaks-rules'; value: SettingsObject; problems: SettingsProblem[] };

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** "812 B", "12.4 KiB". */
export function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Pretty-prints JSON with two spaces; undefined when the text is not valid JSON. */
export function formatJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is SettingsObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a group's text against its shape. Never changes the text: it only says what it finds. */
export function readGroup(field: SettingsField, text: string): GroupReading {
  if (text.trim() === '') return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'not-json', reason: error instanceof Error ? error.message : 'it cannot be read as JSON' };
  }
  if (!isPlainObject(value)) return { kind: 'not-object', value };
  const problems = problemsIn(field, value);
  return problems.length === 0 ? { kind: 'matches', value } : { kind: 'breaks-rules', value, problems };
}

/** The rules a parsed value breaks, each once per field, in the order the schema lists them. */
export function problemsIn(field: SettingsField, value: unknown): SettingsProblem[] {
  const validate = validators[field];
  if (validate(value)) return [];
  const seen = new Set<string>();
  const problems: SettingsProblem[] = [];
  for (const error of validate.errors ?? []) {
    const pointer = error.keyword === 'required' ? `${error.instancePath}/${String(error.params.missingProperty)}` : error.instancePath;
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    problems.push({ pointer, label: labelAt(field, pointer), message: messageFor(error) });
  }
  return problems;
}

/** A plain explanation of why text cannot be shown in the group's form. */
export function explainReading(reading: GroupReading): string | undefined {
  switch (reading.kind) {
    case 'empty':
    case 'matches':
      return undefined;
    case 'not-json':
      return `This text is not JSON (${reading.reason}), so the form cannot show it. It is kept exactly as stored until you change it here.`;
    case 'not-object':
      return `This is JSON, but ${Array.isArray(reading.value) ? 'a list' : `a single ${reading.value === null ? 'null' : typeof reading.value}`} rather than an object of settings ({ … }), so the form cannot show it. It is kept exactly as stored until you change it here.`;
    case 'breaks-rules':
      return `This JSON does not match the settings' shape, so the form cannot show it safely. ${reading.problems.map((problem) => `${problem.label}: ${problem.message}`).join(' ')} It is kept exactly as stored until you change it here.`;
  }
}

type SchemaNode = { title?: string; type?: string; properties?: Record<string, SchemaNode>; items?: SchemaNode; enum?: readonly string[] };

/** The schema below a JSON Pointer (array indexes step into `items`), or undefined off the map. */
export function schemaAt(field: SettingsField, pointer: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = SETTINGS_SCHEMAS[field] as SchemaNode;
  for (const segment of pointer.split('/').slice(1)) {
    if (node === undefined) return undefined;
    node = /^\d+$/.test(segment) && node.items !== undefined ? node.items : node.properties?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

/** "Hand-off to a person › Notify address", "Sources › 2 › Address": the titles along a pointer. */
export function labelAt(field: SettingsField, pointer: string): string {
  const names: string[] = [];
  let node: SchemaNode | undefined = SETTINGS_SCHEMAS[field] as SchemaNode;
  for (const segment of pointer.split('/').slice(1)) {
    if (/^\d+$/.test(segment) && node?.items !== undefined) {
      names.push(`${node.items.title ?? 'Item'} ${Number(segment) + 1}`);
      node = node.items;
    } else {
      node = node?.properties?.[segment];
      names.push(node?.title ?? segment);
    }
  }
  return names.length === 0 ? (SETTINGS_SCHEMAS[field].title as string) : names.join(' › ');
}

const COLOR_SOURCE = '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$';

function messageFor(error: ErrorObject): string {
  const schema = (error.parentSchema ?? {}) as { format?: string; pattern?: string; title?: string; enum?: readonly string[] };
  switch (error.keyword) {
    case 'required':
      return 'This is required.';
    case 'type':
      if (error.params.type === 'integer') return 'Use a whole number.';
      if (error.params.type === 'number') return 'Use a number.';
      if (error.params.type === 'boolean') return 'Use true or false.';
      if (error.params.type === 'object') return 'Use an object of settings ({ … }).';
      if (error.params.type === 'array') return 'Use a list ([ … ]).';
      return 'Use text.';
    case 'maxLength':
      return `Use at most ${String(error.params.limit)} characters.`;
    case 'maxItems':
      return `Use at most ${String(error.params.limit)} entries.`;
    case 'uniqueItems':
      return 'Each choice may appear only once.';
    case 'minimum':
    case 'maximum':
      return `Use a number from ${String((error.parentSchema as { minimum?: number }).minimum ?? '')} to ${String((error.parentSchema as { maximum?: number }).maximum ?? '')}.`;
    case 'enum':
      return `Choose one of: ${(schema.enum ?? []).map((value) => SETTINGS_ENUM_LABELS[value] ?? value).join(', ')}.`;
    case 'pattern':
      if (schema.pattern === COLOR_SOURCE) return 'Use a colour as #rgb or #rrggbb, e.g. #4f46e5.';
      if (schema.format === 'email') return 'Enter an e-mail address such as name@example.com.';
      if (schema.format === 'uri') return 'Enter an address starting with http:// or https://.';
      if (schema.format === 'hostname') return 'Enter a host name such as help.example.com, without http://.';
      if (schema.pattern?.startsWith('^/') === true) return 'Start with / and use letters, digits, -, _ and / only.';
      if (schema.pattern?.includes('auto') === true) return 'Use "auto" or a language tag such as en or de-CH.';
      return 'This is not in the expected form.';
    default:
      return 'This does not match the expected shape.';
  }
}
