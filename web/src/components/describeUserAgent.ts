// Readable names for a User-Agent string. Heuristics only: enough for a person to recognise their
// own devices in a list; the full string goes in a title beside it.

const BROWSERS: Array<[RegExp, string]> = [
  // Order matters: Edge and Opera also say "Chrome", and every Chromium browser also says "Safari".
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|HeadlessChrome|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/\bnode\b|undici/i, 'Node.js'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/\bWindows\b/, 'Windows'],
  [/\biPhone\b/, 'iOS'],
  [/\biPad\b/, 'iPadOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

function firstMatch(userAgent: string, table: Array<[RegExp, string]>): string | undefined {
  return table.find(([pattern]) => pattern.test(userAgent))?.[1];
}

/** The operating system a User-Agent names, e.g. "macOS", or undefined when it names none we know. */
export function operatingSystemOf(userAgent: string): string | undefined {
  return firstMatch(userAgent, SYSTEMS);
}

/** "Chrome on macOS", "Firefox", "Unknown device". */
export function describeUserAgent(userAgent: string): string {
  const browser = firstMatch(userAgent, BROWSERS);
  const system = operatingSystemOf(userAgent);
  if (browser !== undefined && system !== undefined) return `${browser} on ${system}`;
  return browser ?? system ?? (userAgent.trim() === '' ? 'Unknown device' : 'Unknown browser');
}
