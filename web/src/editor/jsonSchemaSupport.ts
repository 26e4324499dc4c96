// CodeMirror help for a settings group's JSON, from the group's schema: a linter that marks each
// broken rule where it is, and completion of property names and of the values a field allows.
// Written here rather than taken from a package: the schemas use a small part of JSON Schema
// (objects, lists, enums, booleans), and this stays a few dozen lines with no further dependency.
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { syntaxTree } from '@codemirror/language';
import type { Diagnostic } from '@codemirror/lint';
import type { EditorState } from '@codemirror/state';
import type { SyntaxNode } from '@lezer/common';
import type { SettingsField } from '@server/sites/contract';
import { SETTINGS_ENUM_LABELS } from '@server/sites/settings-schemas';
import { problemsIn, schemaAt } from '../settingsText';

function unquote(state: EditorState, node: SyntaxNode): string {
  const raw = state.sliceDoc(node.from, node.to);
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw.replace(/^"|"$/g, '');
  }
}

/** The values of an Object or Array node, skipping punctuation. */
function valuesOf(node: SyntaxNode): SyntaxNode[] {
  const values: SyntaxNode[] = [];
  for (let child = node.firstChild; child !== null; child = child.nextSibling) {
    if (!['[', ']', '{', '}', ',', '⚠'].includes(child.name)) values.push(child);
  }
  return values;
}

/** The node a JSON Pointer leads to, or the deepest one on the way. */
function nodeAt(state: EditorState, pointer: string): SyntaxNode | undefined {
  let node: SyntaxNode | null = syntaxTree(state).topNode.firstChild;
  for (const segment of pointer.split('/').slice(1)) {
    if (node === null) return undefined;
    let next: SyntaxNode | null = null;
    if (node.name === 'Object') {
      for (const property of node.getChildren('Property')) {
        const name = property.getChild('PropertyName');
        if (name !== null && unquote(state, name) === segment) next = property.lastChild;
      }
    } else if (node.name === 'Array') {
      next = valuesOf(node)[Number(segment)] ?? null;
    }
    if (next === null) return node;
    node = next;
  }
  return node ?? undefined;
}

/** Marks each rule the text breaks at the value it names (JSON syntax is the JSON linter's job). */
export function schemaDiagnostics(field: SettingsField, state: EditorState): Diagnostic[] {
  const text = state.doc.toString();
  if (text.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  return problemsIn(field, value).map((problem) => {
    const node = nodeAt(state, problem.pointer);
    return { from: node?.from ?? 0, to: node?.to ?? Math.min(1, text.length), severity: 'error', message: `${problem.label}: ${problem.message}` };
  });
}

/** The JSON Pointer of an Object or Array node, from the document's top. */
function pointerOf(state: EditorState, node: SyntaxNode): string {
  const segments: string[] = [];
  let current = node;
  for (let parent = current.parent; parent !== null; current = parent, parent = parent.parent) {
    if (parent.name === 'Property') {
      const name = parent.getChild('PropertyName');
      if (name !== null) segments.unshift(unquote(state, name));
    } else if (parent.name === 'Array') {
      segments.unshift(String(valuesOf(parent).findIndex((value) => value.from === current.from)));
    }
  }
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}

/** Completes property names inside an object, and enum values and true/false after a colon. */
export function schemaCompletion(field: SettingsField) {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/"?[\w-]*/);
    const from = word?.from ?? context.pos;
    let node: SyntaxNode | null = syntaxTree(context.state).resolveInner(context.pos, -1);
    // Inside a property: a name being typed, or a value after its colon.
    const property = node.name === 'Property' ? node : node.parent?.name === 'Property' ? node.parent : null;
    const name = property?.getChild('PropertyName') ?? null;
    const typingName = node.name === 'PropertyName' || (property !== null && name !== null && context.pos <= name.to);
    if (property !== null && name !== null && !typingName) {
      const object = property.parent;
      if (object === null) return null;
      const schema = schemaAt(field, `${pointerOf(context.state, object)}/${unquote(context.state, name)}`);
      const options = schema?.enum?.map((value) => ({ label: JSON.stringify(value), detail: SETTINGS_ENUM_LABELS[value], type: 'enum' })) ?? (schema?.type === 'boolean' ? [{ label: 'true' }, { label: 'false' }] : []);
      return options.length === 0 ? null : { from, options, validFor: /^"?[\w-]*"?$/ };
    }
    while (node !== null && node.name !== 'Object') node = node.parent;
    if (node === null) return context.explicit ? { from, options: [{ label: '{}', apply: '{\n  \n}' }] } : null;
    const pointer = pointerOf(context.state, node);
    const schema = schemaAt(field, pointer);
    const present = new Set(node.getChildren('Property').map((each) => each.getChild('PropertyName')).filter((each): each is SyntaxNode => each !== null && each.to < from).map((each) => unquote(context.state, each)));
    const options = Object.entries(schema?.properties ?? {})
      .filter(([key]) => !present.has(key))
      .map(([key, child]) => ({ label: `"${key}"`, apply: `"${key}": `, detail: child.title, type: 'property' }));
    return options.length === 0 ? null : { from, options, validFor: /^"?[\w-]*$/ };
  };
}
