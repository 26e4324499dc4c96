// Writes each built file's br and gzip copies beside it, so a server process starts without
// compressing the dashboard (brotli at its highest setting takes seconds of CPU for the bundle).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';
import { COMPRESSED_SUFFIXES, compressFully, isCompressible } from '../src/web/precompressed.ts';

export function precompressed(): Plugin {
  return {
    name: 'siteward-precompressed',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir ?? '';
      for (const fileName of Object.keys(bundle)) {
        const file = path.join(dir, fileName);
        const body = readFileSync(file);
        if (!isCompressible(fileName, body.length)) continue;
        const copies = compressFully(body);
        writeFileSync(file + COMPRESSED_SUFFIXES.br, copies.br);
        writeFileSync(file + COMPRESSED_SUFFIXES.gzip, copies.gzip);
      }
    },
  };
}
