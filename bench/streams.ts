import { connect, type Socket } from 'node:net';

/** What holding many event streams open, then changing their site once, showed. */
export interface StreamsResult {
  /** Streams that opened and received the configuration. */
  opened: number;
  /** Streams that could not open, or closed before the change reached them. */
  failed: number;
  /** Milliseconds from the change's answer to each stream's receiving it, sorted. */
  deliveriesMs: number[];
  /** Streams the change had not reached when the wait ended. */
  missed: number;
}

/** Connections opened at once: more would overflow the server's accept backlog (511) and wait out SYN retries. */
const OPENING_BATCH = 200;

/**
 * One stream as a raw HTTP/1.1 connection: cheap enough to hold ten thousand in this process. It
 * only looks for the event ids it is told to wait for; the tail of each read is kept so that an
 * id split across two reads is still seen.
 */
class RawStream {
  readonly socket: Socket;
  #tail = '';
  #waiting: { marker: string; resolve: () => void } | undefined;
  closed = false;

  constructor(host: string, port: number, path: string) {
    this.socket = connect(port, host);
    this.socket.setNoDelay(true);
    this.socket.setEncoding('latin1');
    this.socket.on('connect', () => this.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: text/event-stream\r\n\r\n`));
    this.socket.on('data', (chunk: string) => {
      const text = this.#tail + chunk;
      this.#tail = text.slice(-32);
      if (this.#waiting !== undefined && text.includes(this.#waiting.marker)) {
        const { resolve } = this.#waiting;
        this.#waiting = undefined;
        resolve();
      }
    });
    const closed = () => {
      this.closed = true;
      this.#waiting?.resolve();
    };
    this.socket.on('close', closed);
    this.socket.on('error', () => undefined);
  }

  /** Resolves once the event with this id arrives, or the connection closes. */
  until(id: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) {
        resolve();
        return;
      }
      this.#waiting = { marker: `\nid: ${id}\n`, resolve };
    });
  }
}

export interface StreamsRun {
  /** The app that holds the streams. */
  url: string;
  path: string;
  count: number;
  /** Called once every stream is open, before the change: the memory figure is read here. */
  opened(): Promise<void>;
  /** Makes the change and resolves when its answer has arrived, with the version it made. */
  change(): Promise<number>;
  /** How long the streams may take to be told. */
  waitMs: number;
}

/**
 * Opens `count` event streams on one app, waits for each one's first event, lets `opened` measure,
 * makes one change and times when each stream receives it, from the change's answer.
 */
export async function measureStreams(run: StreamsRun): Promise<StreamsResult> {
  const { hostname, port } = new URL(run.url);
  const streams: RawStream[] = [];
  try {
    let failed = 0;
    for (let start = 0; start < run.count; start += OPENING_BATCH) {
      const batch = Array.from({ length: Math.min(OPENING_BATCH, run.count - start) }, () => new RawStream(hostname, Number(port), run.path));
      await Promise.all(batch.map((stream) => stream.until(1)));
      for (const stream of batch) {
        if (stream.closed) failed++;
        else streams.push(stream);
      }
    }
    await run.opened();
    const deliveries = new Array<number>(streams.length).fill(Number.NaN);
    let answeredAt = Number.NaN;
    let version = 0;
    const waiting: Array<Promise<void>> = [];
    // Listening before the change: an event may arrive before the change's own answer does.
    const arrived = new Array<number>(streams.length).fill(Number.NaN);
    const changed = run.change().then((made) => {
      version = made;
      answeredAt = performance.now();
    });
    // The change's version is 2 for a site at version 1, which the benchmark's streamed site is.
    streams.forEach((stream, index) => waiting.push(stream.until(2).then(() => void (arrived[index] = stream.closed ? Number.NaN : performance.now()))));
    await changed;
    if (version !== 2) throw new Error(`the streamed site's change made version ${version}, not 2`);
    await Promise.race([Promise.all(waiting), new Promise((resolve) => setTimeout(resolve, run.waitMs))]);
    arrived.forEach((at, index) => (deliveries[index] = Math.max(0, at - answeredAt)));
    const received = deliveries.filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
    const closedEarly = streams.filter((stream) => stream.closed).length;
    return { opened: streams.length, failed: failed + closedEarly, deliveriesMs: received, missed: streams.length - received.length };
  } finally {
    for (const stream of streams) stream.socket.destroy();
  }
}
