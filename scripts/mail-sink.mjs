// A local SMTP server for development: accepts every mail on 127.0.0.1 (port MAIL_SINK_PORT,
// default 1025) and prints it. Run the service with SMTP_URL=smtp://127.0.0.1:1025 beside it.
import { SMTPServer } from 'smtp-server';

const port = Number(process.env.MAIL_SINK_PORT ?? 1025);
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      const message = Buffer.concat(chunks).toString('utf8');
      const subject = /^Subject: (.*)$/im.exec(message)?.[1] ?? '(no subject)';
      const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
      // The links in the mail, decoded from quoted-printable soft breaks and escapes.
      const text = message
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
      const links = [...new Set(text.match(/https?:\/\/[^\s"<>]*[^\s"<>.,;:)]/g) ?? [])];
      console.log(`\n--- mail to ${to}: ${subject}`);
      for (const link of links) console.log(`    ${link}`);
      callback();
    });
  },
});
server.listen(port, '127.0.0.1', () => console.log(`mail sink listening on smtp://127.0.0.1:${port}`));
