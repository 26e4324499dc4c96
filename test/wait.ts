export interface UntilOptions {
  /** How long the condition may take before the wait fails (default 10 s). */
  timeoutMs?: number;
  /** How often the condition is looked at (default 10 ms). */
  intervalMs?: number;
}

/**
 * Waits for the event a test expects: resolves, with what `probe` returned, as soon as it returns
 * something other than false or undefined, and fails naming `what` (a text, or a function that
 * describes the state seen last) if it has not within the timeout. The one way tests wait for work
 * done in the background or in another process.
 */
export async function until<T>(probe: () => T | false | undefined | Promise<T | false | undefined>, what: string | (() => string), options: UntilOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== false && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
