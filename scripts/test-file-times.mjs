// A node:test reporter that prints, once the run ends, the test files that took longest (each
// file's own run, from its process's start to its end), so that whoever makes the suite slower
// sees it in the log.
import path from 'node:path';

const SHOWN = 15;

export default async function* fileTimes(source) {
  const seconds = new Map();
  for await (const event of source) {
    // Each file is a test of its own, named by its path, completed when its process has ended.
    if (event.type !== 'test:complete' || event.data.nesting !== 0 || event.data.file === undefined) continue;
    if (path.resolve(event.data.name) !== path.resolve(event.data.file)) continue;
    seconds.set(path.relative(process.cwd(), event.data.file), (event.data.details?.duration_ms ?? 0) / 1000);
  }
  const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  const total = [...seconds.values()].reduce((sum, each) => sum + each, 0);
  yield `\nslowest test files (seconds, of ${total.toFixed(0)} s over ${seconds.size} files):\n`;
  for (const [file, each] of slowest) yield `${each.toFixed(1).padStart(8)}  ${file}\n`;
}
