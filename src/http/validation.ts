import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import build from 'fast-json-stringify';
import type { FieldError } from '../errors.js';
import { CHECKED_BY_ROUTE, PATTERN_MESSAGES } from './params.js';

/**
 * Bodies are validated strictly: no type coercion ("5" is not a number) and no silent removal of
 * unknown fields (an unknown field is an error naming it). Query strings and path parameters are
 * text by nature, so there numbers are coerced.
 */
const strict = new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false });
const coercing = new Ajv({ allErrors: true, coerceTypes: true, removeAdditional: false, useDefaults: true, strict: false });

/**
 * Text no database keeps as sent: PostgreSQL refuses NUL in a text column, and an unpaired UTF-16
 * surrogate has no UTF-8 form (it would be stored as U+FFFD while the response echoed the
 * original). isWellFormed is false exactly when a surrogate is unpaired.
 */
function isStorable(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The path (keys from the top) to the first string, key or value, holding unstorable text, if
 * any, leaving out the top-level members `skip` names. Every body and parameter on every route
 * goes through this, so the path is only built for a hit.
 */
function unstorablePath(value: unknown, skip: ReadonlySet<string> = NONE): string[] | undefined {
  if (typeof value === 'string') return isStorable(value) ? undefined : [];
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (skip.has(key)) continue;
    if (!isStorable(key)) return [key];
    const below = unstorablePath(item);
    if (below !== undefined) return [key, ...below];
  }
  return undefined;
}

/** The JSON Pointer (RFC 6901) of the first string holding unstorable text, if any. */
function findUnstorableText(value: unknown, skip?: ReadonlySet<string>): string | undefined {
  return unstorablePath(value, skip)?.map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function unstorableTextError(path: string): ErrorObject {
  return { instancePath: path, schemaPath: '#', keyword: 'storableText', message: 'must not contain NUL characters or unpaired surrogates', params: {} };
}

/** Every request body passes the schema and then the storable-text rule, on every route. */
function compileBodyValidator(schema: object): Validator {
  const validateSchema = strict.compile(schema);
  const validate: Validator = (data) => {
    if (!validateSchema(data)) {
      validate.errors = validateSchema.errors;
      return false;
    }
    const path = findUnstorableText(data);
    if (path === undefined) return true;
    validate.errors = [unstorableTextError(path)];
    return false;
  };
  return validate;
}

/** The top-level fields whose schema says the route judges any text itself (CHECKED_BY_ROUTE). */
function fieldsCheckedByRoute(schema: object): ReadonlySet<string> {
  const properties = (schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
  return new Set(Object.keys(properties).filter((name) => properties[name]?.[CHECKED_BY_ROUTE] === true));
}

/**
 * Path parameters, query strings and headers pass the schema and the same storable-text rule as
 * bodies: an id or a search term with a NUL would otherwise reach PostgreSQL, which refuses it
 * (a 500 there, where SQLite answers "not found").
 */
function compileParameterValidator(schema: object): Validator {
  const validateSchema = coercing.compile(schema);
  const exempt = fieldsCheckedByRoute(schema);
  const validate: Validator = (data) => {
    if (!validateSchema(data)) {
      validate.errors = validateSchema.errors;
      return false;
    }
    const path = findUnstorableText(data, exempt);
    if (path === undefined) return true;
    validate.errors = [unstorableTextError(path)];
    return false;
  };
  return validate;
}

/**
 * Compiled once per schema and process. Most route schemas are module constants, found by the
 * object; those a route builds as it registers (a literal in its options) are found by their JSON,
 * which is all that a compiler reads of them. A process that builds the app again (the tests build
 * one per test, hundreds per process) reuses what the first build compiled
 * (docs/performance.md, "The test suite").
 */
function compiledOnce<T>(compile: (schema: object) => T): (schema: object) => T {
  const byObject = new WeakMap<object, T>();
  const byText = new Map<string, T>();
  return (schema) => {
    let found = byObject.get(schema);
    if (found === undefined) {
      const text = JSON.stringify(schema);
      found = byText.get(text);
      if (found === undefined) {
        found = compile(schema);
        byText.set(text, found);
      }
      byObject.set(schema, found);
    }
    return found;
  };
}

const bodyValidator = compiledOnce(compileBodyValidator);
const parameterValidator = compiledOnce(compileParameterValidator);

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) =>
  httpPart === 'body' ? bodyValidator(schema as object) : parameterValidator(schema as object);

/** Fastify's own serializer (fast-json-stringify with its defaults), compiled once per response schema. */
const serializer = compiledOnce((schema) => build(schema));

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => serializer(schema as object);

/** Ajv's errors as JSON Pointer paths a client can map to its form fields. */
export function fieldErrors(errors: ReadonlyArray<Partial<ErrorObject>>, context: string | undefined): FieldError[] {
  const prefix = context === 'body' || context === undefined ? '' : `/${context}`;
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    const params = (error.params ?? {}) as Record<string, unknown>;
    let path = `${prefix}${error.instancePath ?? ''}`;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties') {
      path += `/${String(params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (error.keyword === 'required') {
      path += `/${String(params.missingProperty)}`;
      message = 'is required';
    } else if (error.keyword === 'type') {
      message = `must be ${String(params.type).replace(',', ' or ')}`;
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    } else if (error.keyword === 'pattern' && path.endsWith('/color')) {
      message = 'must be a colour like #rgb or #rrggbb';
    } else if (error.keyword === 'pattern') {
      message = PATTERN_MESSAGES.get(String(params.pattern)) ?? message;
    }
    // A union reports each branch; one line per field and message is enough.
    const key = `${path} ${message}`;
    if (error.keyword === 'anyOf' || seen.has(key)) continue;
    seen.add(key);
    result.push({ path, message });
  }
  return result;
}
