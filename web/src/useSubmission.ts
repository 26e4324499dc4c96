import { type FormEvent, useState } from 'react';

interface SubmissionOptions {
  /**
   * Whether the form stays on screen after a success. Most forms are left when they succeed
   * (signed in, link sent): there the busy state stays on, so the button cannot send the same
   * thing again while the next page loads. A form that stays (a dialog that creates a site and
   * may create another) is ready again at once.
   */
  staysAfterSuccess?: boolean;
  /** Runs after a failure has been kept, to clear what must be retyped (a refused password). */
  onFailure?: (error: unknown) => void;
}

/**
 * What every form's submit button needs: busy while the request runs, the error it failed with
 * (cleared at the next try), and a submit handler that never lets the browser post the form.
 * `setError` is for checks made before sending, so that they show where the server's would.
 */
export function useSubmission(send: () => Promise<void>, options: SubmissionOptions = {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await send();
      if (options.staysAfterSuccess === true) setBusy(false);
    } catch (caught) {
      setError(caught);
      options.onFailure?.(caught);
      setBusy(false);
    }
  }

  return { busy, error, setError, submit };
}
