import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where a message goes: an SMTP server, or a folder of .eml files. */
export interface MailTransport {
  /** Delivers the message and returns a short description of where it went, for the log. */
  deliver(from: string, message: MailMessage): Promise<string>;
}

/**
 * nodemailer is loaded with the first message, not at start-up: it holds megabytes of heap in
 * every process, and most never send (docs/decisions/lazy-libraries.md).
 */
async function loadNodemailer() {
  return (await import('nodemailer')).default;
}

export class SmtpTransport implements MailTransport {
  readonly #url: URL;
  #transport: Promise<Transporter> | undefined;

  constructor(smtpUrl: string) {
    this.#url = new URL(smtpUrl);
  }

  async deliver(from: string, message: MailMessage): Promise<string> {
    this.#transport ??= this.#connect();
    const info = await (await this.#transport).sendMail({ from, ...message });
    return `SMTP, message id ${String(info.messageId)}`;
  }

  async #connect(): Promise<Transporter> {
    const url = this.#url;
    const nodemailer = await loadNodemailer();
    return nodemailer.createTransport({
      host: url.hostname,
      port: url.port === '' ? (url.protocol === 'smtps:' ? 465 : 587) : Number(url.port),
      secure: url.protocol === 'smtps:',
      ...(url.username === '' ? {} : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
      // Short timeouts: a stuck server must not hold a delivery (and its retries) for minutes.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }
}

/**
 * Without SMTP_URL, each message is written to DATA_DIR/outbox as an .eml file (readable by any
 * mail client), so the service works with no mail server. The files hold live sign-in links:
 * the folder is 0700 and the files 0600.
 */
export class OutboxTransport implements MailTransport {
  #builder: Promise<Transporter> | undefined;

  constructor(private readonly directory: string) {}

  async deliver(from: string, message: MailMessage): Promise<string> {
    this.#builder ??= loadNodemailer().then((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
    const info = await (await this.#builder).sendMail({ from, ...message });
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
    const file = path.join(this.directory, name);
    writeFileSync(file, info.message as Buffer, { mode: 0o600 });
    return `outbox file ${file}`;
  }
}

export interface MailerOptions {
  /** Waits before each retry; its length is the number of retries. */
  retryDelaysMs?: number[];
}

/**
 * Sends in the background: a request that triggers an e-mail never waits for the mail server,
 * and a failing server never turns into an error for the person asking. Failures are logged and
 * retried a bounded number of times. Message contents are never logged: they carry sign-in links.
 */
export class Mailer {
  readonly #pending = new Set<Promise<void>>();
  readonly #retryDelaysMs: number[];

  constructor(
    private readonly transport: MailTransport,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
    options: MailerOptions = {},
  ) {
    this.#retryDelaysMs = options.retryDelaysMs ?? [2_000, 10_000, 60_000];
  }

  /** Delivery attempts that failed, and messages given up on, since the process started (the metrics read them). */
  failedAttempts = 0;
  givenUp = 0;

  send(message: MailMessage): void {
    const delivery = this.#deliverWithRetries(message).finally(() => this.#pending.delete(delivery));
    this.#pending.add(delivery);
  }

  /** Resolves when every message handed over so far is delivered or given up on. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async #deliverWithRetries(message: MailMessage): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const where = await this.transport.deliver(this.from, message);
        this.log.info({ subject: message.subject, attempt: attempt + 1 }, `mail delivered to ${where}`);
        return;
      } catch (error) {
        const delay = this.#retryDelaysMs[attempt];
        const reason = error instanceof Error ? error.message : String(error);
        this.failedAttempts++;
        if (delay === undefined) {
          this.givenUp++;
          this.log.error({ subject: message.subject, attempts: attempt + 1, reason }, 'mail delivery failed; giving up');
          return;
        }
        this.log.warn({ subject: message.subject, attempt: attempt + 1, reason, retryInMs: delay }, 'mail delivery failed; will retry');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}

/** The mailer the configuration asks for: SMTP when SMTP_URL is set, else .eml files in DATA_DIR/outbox. */
export function mailerFor(config: Pick<Config, 'smtpUrl' | 'dataDir' | 'mailFrom'>, log: FastifyBaseLogger, options?: MailerOptions): Mailer {
  const transport = config.smtpUrl === undefined ? new OutboxTransport(path.join(config.dataDir, 'outbox')) : new SmtpTransport(config.smtpUrl);
  return new Mailer(transport, config.mailFrom, log, options);
}
