// A node:test reporter that prints, once the run ends, the test files that took longest (each
// file's own run, from its process's start to its end), so that whoever makes the suite slower
// sees it in the log; and the files that spent long outside their tests (starting, in file-level
// hooks, or kept alive after their last test by a timer or socket left behind), where the runner's
// place is held while nothing is tested.
import path from 'node:path';

const SHOWN = 15;
/** Seconds outside its tests above which a file is named. */
const OUTSIDE_SHOWN_SECONDS = 5;

export default async function* fileTimes(source) {
  const seconds = new Map();
  const inTests = new Map();
  for await (const event of source) {
    if (event.type !== 'test:complete' || event.data.nesting !== 0 || event.data.file === undefined) continue;
    // With --enable-source-maps a test's own events name its TypeScript source; the file's, the
    // compiled file the runner started.
    const relative = path.relative(process.cwd(), event.data.file);
    const file = relative.endsWith('.ts') ? path.join('dist', relative.replace(/\.ts$/, '.js')) : relative;
    const duration = (event.data.details?.duration_ms ?? 0) / 1000;
    // Each file is a test of its own, named by its path, completed when its process has ended;
    // its own top-level tests and suites come at the same nesting, before it.
    if (path.resolve(event.data.name) === path.resolve(event.data.file)) seconds.set(file, duration);
    else inTests.set(file, (inTests.get(file) ?? 0) + duration);
  }
  const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  const total = [...seconds.values()].reduce((sum, each) => sum + each, 0);
  yield `\nslowest test files (seconds, of ${total.toFixed(0)} s over ${seconds.size} files):\n`;
  for (const [file, each] of slowest) yield `${each.toFixed(1).padStart(8)}  ${file}\n`;
  const outside = [...seconds]
    .map(([file, each]) => [file, each - (inTests.get(file) ?? 0)])
    .filter(([, each]) => each > OUTSIDE_SHOWN_SECONDS)
    .sort((a, b) => b[1] - a[1]);
  if (outside.length > 0) {
    yield `test files more than ${OUTSIDE_SHOWN_SECONDS} s outside their tests (starting, file-level hooks, or kept alive after the last test):\n`;
    for (const [file, each] of outside) yield `${each.toFixed(1).padStart(8)}  ${file}\n`;
  }
}
