// A settings group is free text that is usually JSON. The editor decides which by the first
// character: text that starts with { or [ (after white space) is meant to be JSON, so a parse
// failure there is a mistake worth stopping a save for; any other text is plain text and valid.
// The server stores both as they are; this guard only keeps half-edited JSON from being saved.

export type SettingsTextAnalysis =
  | { kind: 'empty'; bytes: number }
  | { kind: 'text'; bytes: number }
  | { kind: 'json'; bytes: number }
  | { kind: 'invalid-json'; bytes: number; message: string };

const encoder = new TextEncoder();

export function looksLikeJson(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

export function analyseSettingsText(text: string): SettingsTextAnalysis {
  const bytes = encoder.encode(text).length;
  if (text.trim() === '') return { kind: 'empty', bytes };
  if (!looksLikeJson(text)) return { kind: 'text', bytes };
  try {
    JSON.parse(text);
    return { kind: 'json', bytes };
  } catch (error) {
    return { kind: 'invalid-json', bytes, message: error instanceof Error ? error.message : 'cannot be parsed' };
  }
}

/** Pretty-prints JSON with two spaces; answers undefined when the text is not valid JSON. */
export function formatJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}

/** "812 B", "12.4 KiB". */
export function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}
