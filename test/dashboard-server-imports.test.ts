import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { importSpecifiers, repository, SERVER_ALIAS, sourceFiles } from './import-graph.js';

// The dashboard's types come from the client generated from the OpenAPI document
// (web/src/api/types.ts). From the server it imports only the plain contract that must be the
// same on both sides: limits, error codes, enum lists, and pure functions such as the settings
// merge. Those files import nothing but each other, so `@server/` can never pull a TypeBox schema,
// a query or a package into the dashboard: there is one source of truth for each shape.
const serverSource = path.join(repository, 'src');

/** The server source an import names: the compiled `.js` name stands for its `.ts` file. */
function serverFile(from: string, specifier: string): string {
  const base = specifier.startsWith(SERVER_ALIAS) ? path.join(serverSource, specifier.slice(SERVER_ALIAS.length)) : path.resolve(path.dirname(from), specifier);
  return `${base.replace(/\.js$/, '')}.ts`;
}

/** The server files the dashboard reaches through `@server/`, and what those files import outside that set. */
function sharedWithServer(): { files: Set<string>; outside: string[] } {
  const files = new Set<string>();
  const outside: string[] = [];
  const pending = sourceFiles(path.join(repository, 'web', 'src')).flatMap((file) =>
    importSpecifiers(file)
      .filter((specifier) => specifier.startsWith(SERVER_ALIAS))
      .map((specifier) => serverFile(file, specifier)),
  );
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of importSpecifiers(file)) {
      if (specifier.startsWith('.')) pending.push(serverFile(file, specifier));
      else outside.push(`${path.relative(repository, file)} imports ${specifier}`);
    }
  }
  return { files, outside };
}

test('every @server/ import of the dashboard reaches only server files that import nothing but each other', () => {
  const { files, outside } = sharedWithServer();
  assert.ok(files.size > 0, 'the dashboard imports no server file: the test reads the wrong folder');
  assert.deepEqual(outside, []);
});

test('the dashboard imports no TypeBox schema module of the server: its types are the generated ones', () => {
  const schemaModules = [...sharedWithServer().files].map((file) => path.relative(repository, file)).filter((file) => path.basename(file) === 'schema.ts');
  assert.deepEqual(schemaModules, []);
});
