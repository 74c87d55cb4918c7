import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/* A real SMTP server in the test process, keeping what it receives. */

export interface ReceivedMail {
  from: string;
  to: string[];
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
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
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
