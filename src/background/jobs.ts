import type { FastifyInstance } from 'fastify';

/** Work every app server does in the background: started when the app is ready, stopped when it closes. */
export interface BackgroundJob {
  start(): void;
  /** Stops looking for work and waits for what is under way. */
  close(): Promise<void>;
}

/**
 * The one place the app's background jobs start and stop: all of them once the app is ready, and
 * on close each stops and the work under way finishes before the database goes.
 */
export function runBackgroundJobs(app: Pick<FastifyInstance, 'addHook'>, jobs: readonly BackgroundJob[]): void {
  app.addHook('onReady', async () => {
    for (const job of jobs) job.start();
  });
  app.addHook('onClose', async () => {
    await Promise.all(jobs.map((job) => job.close()));
  });
}

/** A job that runs `run` every `intervalMs`, on every app server; a failed run is reported and the next one comes anyway. */
export function everyInterval(intervalMs: number, run: () => Promise<unknown>, onError: (error: unknown) => void): BackgroundJob {
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      // The timer alone does not keep the process alive: shutting down is never held up by it.
      timer = setInterval(() => void run().catch(onError), intervalMs).unref();
    },
    async close() {
      clearInterval(timer);
    },
  };
}
