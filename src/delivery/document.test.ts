import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PublicDocument } from './document.js';

test("a document keeps its JSON, its event and its compressed forms in buffers of their own (zlib's are views of 64 KiB)", () => {
  const document = new PublicDocument({
    id: 'site-1',
    workspace_id: 'workspace-1',
    name: 'A site',
    color: '#336699',
    widget: JSON.stringify({ greeting: 'Hello! '.repeat(200) }),
    portal: '',
    branding: '',
    public_theme: '',
    version: 7,
    updated_at: '2026-01-01T00:00:00.000Z',
    public_key: 'spk_abcdefghijklmnopqrstuvwx',
    previous_public_key: null,
    previous_public_key_expires_at: null,
  });
  assert.ok(document.compressible);
  for (const buffer of [document.body, document.event, document.encoded('gzip'), document.encoded('br')]) {
    assert.equal(buffer.buffer.byteLength, buffer.length);
  }
  assert.ok(document.size > document.body.length + document.event.length);
});
