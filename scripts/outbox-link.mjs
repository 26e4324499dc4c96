// Prints the link (sign-in or address confirmation) from the newest message in the mail outbox (DATA_DIR/outbox, ./data by
// default): the outbox is where e-mail goes when SMTP_URL is not set.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const outbox = path.join(process.env.DATA_DIR ?? 'data', 'outbox');
const newest = readdirSync(outbox).filter((name) => name.endsWith('.eml')).sort().pop();
if (newest === undefined) {
  console.error(`no messages in ${outbox}`);
  process.exit(1);
}
// The text part is quoted-printable: join soft line breaks and decode =XX escapes.
const text = readFileSync(path.join(outbox, newest), 'utf8')
  .replace(/=\r?\n/g, '')
  .replace(/=([0-9A-F]{2})/g, (_match, hex) => String.fromCharCode(parseInt(hex, 16)));
const link = /https?:\/\/\S+?\/(?:magic|verify-email)\?token=[A-Za-z0-9_-]+/.exec(text);
if (link === null) {
  console.error(`no link in ${newest}`);
  process.exit(1);
}
console.log(link[0]);
