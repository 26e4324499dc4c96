// Module customization hooks (they run on the loader's own thread): every resolved import is
// appended to IMPORT_LOG. A package's entry point passes here even when the package is CommonJS.
import { appendFileSync } from 'node:fs';

type Resolve = (specifier: string, context: object) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: object, nextResolve: Resolve): Promise<{ url: string }> {
  const resolved = await nextResolve(specifier, context);
  const log = process.env.IMPORT_LOG;
  if (log !== undefined) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
