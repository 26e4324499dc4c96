// A node:test reporter that prints, once the run ends, the test files that took longest (from
// their first event to their last), so that whoever makes the suite slower sees it in the log.
import path from 'node:path';

const SHOWN = 15;

export default async function* fileTimes(source) {
  const spans = new Map();
  for await (const event of source) {
    if (event.data?.file === undefined) continue;
    // With source maps some events name the TypeScript source, others the compiled file.
    const file = path.relative(process.cwd(), event.data.file).replace(/^dist\//, '').replace(/\.js$/, '.ts');
    const now = performance.now();
    const span = spans.get(file);
    if (span === undefined) spans.set(file, { first: now, last: now });
    else span.last = now;
  }
  const slowest = [...spans].map(([file, span]) => ({ file, seconds: (span.last - span.first) / 1000 })).sort((a, b) => b.seconds - a.seconds);
  yield `\nslowest test files (first to last event, seconds):\n`;
  for (const { file, seconds } of slowest.slice(0, SHOWN)) yield `${seconds.toFixed(1).padStart(8)}  ${file}\n`;
}
