// Loaded with `node --import` into a server under test: records the URL of every module the
// process imports, one per line, in the file IMPORT_LOG names (see import-recorder-hooks.ts).
import { register } from 'node:module';

register('./import-recorder-hooks.js', import.meta.url);
