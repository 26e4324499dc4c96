// Summarises a V8 .cpuprofile (from `npm run bench -- --profile DIR`, which starts the app under
// `node --cpu-prof`): the functions with the most self time, and self time per package.
// Usage: node dist/bench/profile-summary.js FILE.cpuprofile [--top N]
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives: a package, Node itself, the service's own code, or V8's bookkeeping. */
function areaOf(frame: CallFrame): string {
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg?.[1] !== undefined) return pkg[1];
  if (frame.url.startsWith('node:')) return 'node internals';
  const own = /\/dist\/(src\/[^/]+|bench)\//.exec(frame.url);
  if (own?.[1] !== undefined) return own[1];
  return frame.url;
}

interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  functions: Array<{ name: string; where: string; area: string; selfMs: number }>;
  areas: Array<{ area: string; selfMs: number }>;
}

function summarise(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));

  const functions = new Map<string, { name: string; where: string; area: string; selfMs: number }>();
  const areas = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    const ms = micros / 1000;
    totalMs += ms;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    const file = frame.url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/');
    const where = frame.url === '' ? '' : `${file}:${frame.lineNumber + 1}`;
    const key = `${frame.functionName}@${where}`;
    const entry = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, area: areaOf(frame), selfMs: 0 };
    entry.selfMs += ms;
    functions.set(key, entry);
    const area = areaOf(frame);
    areas.set(area, (areas.get(area) ?? 0) + ms);
  }
  return {
    totalMs,
    idleMs,
    functions: [...functions.values()].sort((a, b) => b.selfMs - a.selfMs),
    areas: [...areas.entries()].map(([area, selfMs]) => ({ area, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
  };
}

function main(): void {
  const args = process.argv.slice(2);
  const topIndex = args.indexOf('--top');
  const top = topIndex === -1 ? 25 : Number(args[topIndex + 1]);
  const files = args.filter((arg, index) => arg !== '--top' && index !== topIndex + 1);
  if (files.length === 0 || !Number.isInteger(top)) {
    process.stderr.write('usage: node dist/bench/profile-summary.js FILE.cpuprofile [--top N]\n');
    process.exit(2);
  }
  for (const file of files) {
    const summary = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
    const busy = summary.totalMs - summary.idleMs;
    const share = (ms: number) => `${((ms / busy) * 100).toFixed(1)}%`;
    const lines = [
      `${file}: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (shares below are of busy time)`,
      '',
      '| self ms | share | function | where |',
      '|---:|---:|---|---|',
      ...summary.functions.slice(0, top).map((entry) => `| ${entry.selfMs.toFixed(0)} | ${share(entry.selfMs)} | ${entry.name} | ${entry.where || entry.area} |`),
      '',
      '| self ms | share | area |',
      '|---:|---:|---|',
      ...summary.areas.slice(0, top).map((entry) => `| ${entry.selfMs.toFixed(0)} | ${share(entry.selfMs)} | ${entry.area} |`),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

main();
