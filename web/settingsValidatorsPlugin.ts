// The settings schemas' validators, compiled when the dashboard is built. The dashboard's content
// security policy (script-src 'self') forbids the eval that compiling a schema in the browser needs,
// so Ajv writes each validator as plain code here (its "standalone" mode) and the bundle imports it
// as `virtual:settings-validators`: one export per settings group, named after the group.
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Plugin } from 'vite';
import { SETTINGS_SCHEMAS } from '../src/sites/settings-schemas.ts';

const MODULE_ID = 'virtual:settings-validators';
const RESOLVED_ID = `\0${MODULE_ID}`;

function validatorModule(): string {
  // verbose: each error carries the schema it broke, so messages can name the rule in words.
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false, verbose: true, code: { source: true, esm: true }, schemas: Object.values(SETTINGS_SCHEMAS) });
  const code = standaloneCode(ajv, Object.fromEntries(Object.entries(SETTINGS_SCHEMAS).map(([group, schema]) => [group, schema.$id])));
  // The generated module still requires Ajv's code-point counter for maxLength; a string's code
  // points are what [...text] counts, so the bundle needs no CommonJS module for it.
  return code.replaceAll('require("ajv/dist/runtime/ucs2length")', '{ default: (text) => [...text].length }');
}

export function settingsValidators(): Plugin {
  return {
    name: 'siteward-settings-validators',
    resolveId: (id) => (id === MODULE_ID ? RESOLVED_ID : undefined),
    load: (id) => (id === RESOLVED_ID ? validatorModule() : undefined),
  };
}
