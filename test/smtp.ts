import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { until } from './wait.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The text/plain part, decoded. */
  text: string;
  /** The text/html part, decoded. */
  html: string;
}

export interface TestSmtpServer {
  url: string;
  messages: ReceivedMail[];
  /** Connections opened so far, accepted or not. */
  connections: number;
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /**
   * The first message from index `from` on that matches: security notices are sent in the
   * background, so the message a test waits for is not always the next one to arrive.
   */
  waitForMessage(from: number, matches: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The decoded body of the first MIME part with the given content type. */
function mimePart(raw: string, contentType: string): string {
  const parts = raw.split(/\r?\n--[^\r\n]+\r?\n/);
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const headers = part.slice(0, split).toLowerCase();
    if (!headers.includes(`content-type: ${contentType}`)) continue;
    const body = part.slice(split).trim().replace(/\r?\n--[^\r\n]*--\s*$/, '');
    if (headers.includes('content-transfer-encoding: quoted-printable')) return decodeQuotedPrintable(body);
    if (headers.includes('content-transfer-encoding: base64')) return Buffer.from(body, 'base64').toString('utf8');
    return body;
  }
  return '';
}

/**
 * A real SMTP server on 127.0.0.1, in process. `rejectWith` makes it refuse every message
 * with that SMTP reply code, to test delivery failures and retries.
 */
export async function startSmtpServer(options: { rejectWith?: number } = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const state = { connections: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      state.connections++;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (options.rejectWith !== undefined) {
          const error = Object.assign(new Error('mailbox unavailable'), { responseCode: options.rejectWith });
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw,
          subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
          text: mimePart(raw, 'text/plain'),
          html: mimePart(raw, 'text/html'),
        });
        callback();
      });
    },
  });
  // A client dropping its connection (an app server stopped while its mailer held one open) is
  // reported here as ECONNRESET; with no listener it would crash the test process after the test.
  // Tests judge delivery by the messages received, not by how clients hung up.
  server.on('error', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    get connections() {
      return state.connections;
    },
    async waitForMessage(from, matches, timeoutMs = 5000) {
      return until(() => messages.slice(from).find(matches), () => `a matching message among the ${messages.length - from} received`, { timeoutMs });
    },
    async waitForMessages(count, timeoutMs = 5000) {
      await until(() => messages.length >= count, () => `${count} messages, got ${messages.length}`, { timeoutMs });
      return messages;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The sign-in link in a message's text, as a person would find it. */
export function linkIn(mail: ReceivedMail): string {
  const match = /https?:\/\/\S+\/magic\?token=[A-Za-z0-9_-]+/.exec(mail.text);
  if (match === null) throw new Error(`no sign-in link in:\n${mail.text}`);
  return match[0];
}

/** The address-confirmation link in a message's text. */
export function verificationLinkIn(mail: ReceivedMail): string {
  const match = /https?:\/\/\S+\/verify-email\?token=[A-Za-z0-9_-]+/.exec(mail.text);
  if (match === null) throw new Error(`no confirmation link in:\n${mail.text}`);
  return match[0];
}

/** The confirmation mail sent to the address at sign-up (or on resend), waiting for it. */
export function verificationMailTo(smtp: TestSmtpServer, email: string): Promise<ReceivedMail> {
  return smtp.waitForMessage(0, (mail) => mail.to.includes(email) && mail.subject.startsWith('Confirm your e-mail address'));
}
