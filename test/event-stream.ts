import { type ClientRequest, type IncomingHttpHeaders, request as httpRequest } from 'node:http';

/** One event of a text/event-stream, as a browser's EventSource would dispatch it. */
export interface StreamEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * A client of a Server-Sent Events stream over node:http, parsing what arrives as the HTML
 * standard says (fields per line, an event per blank line, comments counted). Tests wait for the
 * next event or the end; nothing here sleeps.
 */
export class EventStreamClient {
  readonly events: StreamEvent[] = [];
  comments = 0;
  retry: number | undefined;
  /** The stream ended cleanly (the server ended its response). */
  ended = false;
  /** The connection closed, cleanly or not. */
  closed = false;
  #buffer = '';
  #waiters: Array<() => void> = [];

  private constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly body: () => string,
    private readonly request: ClientRequest,
    /** Stops reading (a client that does not drain what it is sent), and starts again. */
    readonly reading: (on: boolean) => void,
  ) {}

  /** Opens the stream; resolves once the answer's headers have arrived (any status). */
  static open(url: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false });
      request.on('error', reject);
      request.on('response', (response) => {
        let raw = '';
        const client = new EventStreamClient(response.statusCode ?? 0, response.headers, () => raw, request, (on) => {
          if (on) {
            response.socket.resume();
            response.resume();
          } else {
            response.pause();
            response.socket.pause();
          }
        });
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          raw += chunk;
          client.#receive(chunk);
        });
        response.on('end', () => {
          client.ended = true;
          client.#wake();
        });
        response.on('close', () => {
          client.closed = true;
          client.#wake();
        });
        response.on('error', () => undefined);
        request.on('error', () => undefined);
        resolve(client);
      });
      request.end();
    });
  }

  /** Resolves with the `index`-th event (0-based) once it has arrived; rejects if the stream closes first or `timeoutMs` passes. */
  async event(index: number, timeoutMs = 10_000): Promise<StreamEvent> {
    await this.#until(() => this.events.length > index, `event ${index}`, timeoutMs);
    const event = this.events[index];
    if (event === undefined) throw new Error(`no event ${index}`);
    return event;
  }

  /** Resolves once `count` comments have arrived. */
  async commentsReach(count: number, timeoutMs = 10_000): Promise<void> {
    await this.#until(() => this.comments >= count, `${count} comments`, timeoutMs);
  }

  /** Resolves once the connection has closed. */
  async closes(timeoutMs = 10_000): Promise<void> {
    await this.#until(() => this.closed, 'the end of the stream', timeoutMs, true);
  }

  close(): void {
    this.request.destroy();
  }

  async #until(done: () => boolean, what: string, timeoutMs: number, closingIsTheGoal = false): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      if (this.closed && !closingIsTheGoal) throw new Error(`the stream closed before ${what}; received ${JSON.stringify(this.events)}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms; received ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #receive(chunk: string): void {
    this.#buffer += chunk;
    let end: number;
    while ((end = this.#buffer.search(/\r?\n\r?\n/)) !== -1) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      this.#block(block);
    }
    this.#wake();
  }

  #block(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) {
        this.comments++;
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry') this.retry = Number(value);
    }
    if (data.length > 0) this.events.push({ event, id, data: data.join('\n') });
  }
}
