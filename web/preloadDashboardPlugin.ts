// The entry script (src/boot.ts) starts the first screen's requests, then imports the dashboard
// (src/main.tsx): imported from a script, its code would start downloading only once the entry
// has run. These hints in index.html fetch it beside the entry script instead.
import path from 'node:path';
import type { Plugin } from 'vite';

export function preloadDashboard(dashboardModule: string): Plugin {
  return {
    name: 'siteward-preload-dashboard',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const bundle = context.bundle;
        if (bundle === undefined) return [];
        const chunks = new Map(Object.values(bundle).flatMap((output) => (output.type === 'chunk' ? [[output.fileName, output] as const] : [])));
        // The chunk that holds the dashboard's module (with what it imports: vite.config.ts).
        const dashboard = [...chunks.values()].find((chunk) => chunk.moduleIds.some((id) => path.resolve(id) === dashboardModule));
        if (dashboard === undefined) throw new Error(`${dashboardModule} is not a chunk of the build`);
        // The dashboard's chunk and everything it imports statically: what must arrive before it runs.
        const needed = new Set<string>();
        const visit = (fileName: string) => {
          const chunk = chunks.get(fileName);
          if (chunk === undefined || chunk.isEntry || needed.has(fileName)) return;
          needed.add(fileName);
          chunk.imports.forEach(visit);
        };
        visit(dashboard.fileName);
        return [...needed].map((fileName) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${fileName}` }, injectTo: 'head' as const }));
      },
    },
  };
}
