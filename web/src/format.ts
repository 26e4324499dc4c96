// Made once: a formatter takes far longer to make than to use, and a list formats a time per row.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relativeTime = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** A timestamp for people, or a dash when there is none. */
export function formatDateTime(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

/** "3 minutes ago", "in 2 days"; the exact time belongs in a title attribute beside it. */
export function formatRelative(value: string | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined || value === '') return 'never';
  const seconds = Math.round((new Date(value).getTime() - now) / 1000);
  const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return relativeTime.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** A server's field message as a sentence: "must be at least 8 characters" → "Must be at least 8 characters." */
export function asSentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
