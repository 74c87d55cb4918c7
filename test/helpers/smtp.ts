import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { expect } from 'vitest';

/* A real SMTP server in the test process, keeping what it receives. */

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as it came over the wire, one character a byte (latin1): headers, MIME parts, encoded bodies. */
  data: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** Recipients offered so far, refused ones included. */
  attempts(): number;
  /** Recipients whose first offer was left unanswered (`stallFirst`). */
  stalled: string[];
  close(): Promise<void>;
}

/**
 * Starts one on a loopback port; it refuses the first `refuse` recipients, and runs `onAccept` as it
 * accepts a mail (the sender hears the acceptance once what it returns has resolved).
 */
export async function startSmtp(
  options: {
    refuse?: number;
    onAccept?: () => void | Promise<void>;
    /** Recipients whose first offer is never answered: the sending instance hangs there, its claim held. */
    stallFirst?: (recipient: string) => boolean;
  } = {},
): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const stalled: string[] = [];
  let refusals = options.refuse ?? 0;
  let attempts = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      attempts += 1;
      if (options.stallFirst?.(address.address) && !stalled.includes(address.address)) {
        stalled.push(address.address);
        return;
      }
      if (refusals > 0) {
        refusals -= 1;
        return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      // Kept as bytes until the end: a chunk may end inside a character of an 8-bit body.
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('latin1'),
        });
        Promise.resolve(options.onAccept?.()).then(() => callback(), callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    stalled,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A MIME entity: its headers (names in lower case, folded lines joined) and its body as sent. */
interface MimePart {
  headers: Map<string, string>;
  body: string;
}

function splitPart(raw: string): MimePart {
  const end = /\r?\n\r?\n/.exec(raw);
  const head = end ? raw.slice(0, end.index) : raw;
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: end ? raw.slice(end.index + end[0].length) : '' };
}

/** A parameter of a header (`boundary`, `charset`), quoted or not. */
function parameter(header: string | undefined, name: string): string | undefined {
  return new RegExp(`;\\s*${name}="?([^";]+)"?`, 'i').exec(header ?? '')?.[1];
}

/** The body's bytes, its transfer encoding undone: quoted-printable (soft line breaks joined), base64, or as sent. */
function decodedBody({ headers, body }: MimePart): Buffer {
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    const joined = body.replace(/=\r?\n/g, '');
    return Buffer.from(
      joined.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    );
  }
  return Buffer.from(body, 'latin1');
}

/** Every leaf part of a message, multipart ones opened down to their text and files. */
function leaves(part: MimePart): MimePart[] {
  const type = part.headers.get('content-type') ?? 'text/plain';
  const boundary = parameter(type, 'boundary');
  if (!/^multipart\//i.test(type) || !boundary) return [part];
  const sections = part.body.split(
    new RegExp(`^--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \t]*\r?$`, 'm'),
  );
  // The preamble before the first boundary and the epilogue after the last are no parts.
  return sections.slice(1, -1).flatMap((section) => leaves(splitPart(section.replace(/^\r?\n/, ''))));
}

/** The mail's text as a reader sees it: its `text/plain` part decoded (transfer encoding and charset). */
export function mailText(mail: ReceivedMail): string {
  const parts = leaves(splitPart(mail.data));
  const text = parts.find((part) => /^text\/plain/i.test(part.headers.get('content-type') ?? 'text/plain'));
  expect(text, `no text part in the mail to ${mail.to.join(', ')}`).toBeDefined();
  const charset = parameter(text!.headers.get('content-type'), 'charset') ?? 'utf-8';
  return new TextDecoder(charset).decode(decodedBody(text!));
}

/** The last link in the mail's text whose address holds `path` (`/reset?token=`). */
export function linkInMail(mail: ReceivedMail, path: string): string {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const link = mailText(mail)
    .match(new RegExp(`https?://\\S+${escaped}\\S*`, 'g'))
    ?.at(-1);
  expect(link, `no link with ${path} in the mail to ${mail.to.join(', ')}`).toBeDefined();
  return link!;
}
