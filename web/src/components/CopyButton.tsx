import { useState } from 'react';
import { Button } from './Button';

/** Copies text to the clipboard and says so; falls back to selecting it where the clipboard is refused. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    window.setTimeout(() => setState('idle'), 2500);
  }
  return (
    <>
      <Button onClick={copy}>{state === 'copied' ? 'Copied' : label}</Button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Copying failed: select the text and copy it by hand' : ''}
      </span>
    </>
  );
}
