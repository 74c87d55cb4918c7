import { ConfigError, loadConfig, type Config } from './config';
import { createDeps } from './create-deps';
import { isUnavailable } from './db/errors';
import { logQueuedMail } from './modules/mail/dev-log';
import { scheduleDailyDigest } from './modules/mail/digest';
import { createServer } from './server';

/** Startup problems a person can fix (a bad setting, a busy port) read as one line, not a stack. */
function exitWith(message: string): never {
  console.error(message);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) exitWith(err.message);
  throw err;
}
const deps = await createDeps(config).catch((err: unknown) => {
  if (isUnavailable(err)) exitWith(`Cannot reach the database named by DATABASE_URL: ${(err as Error).message}`);
  throw err;
});
const server = await createServer(deps).catch(async (err: NodeJS.ErrnoException) => {
  await deps.database.close();
  if (err.code === 'EADDRINUSE')
    exitWith(`Port ${config.port} is already in use; stop what listens there or set PORT to another port.`);
  if (err.code === 'EACCES') exitWith(`Not allowed to listen on port ${config.port}; set PORT to a port above 1023.`);
  throw err;
});
// With PORT=0 the port is known only now; links must name it.
if (!process.env.PUBLIC_URL && config.port === 0) config.publicUrl = `http://localhost:${server.port}`;
// The daily digest is queued at 07:00 in each time zone (once per zone and day across instances).
const stopDigest = scheduleDailyDigest(deps);
// Without SMTP, queued mail is printed so its links can be followed (it stays in the outbox).
const stopMailLog = config.smtpUrl ? () => {} : logQueuedMail(deps.database);
const store = config.databaseUrl ? `PostgreSQL at ${new URL(config.databaseUrl).host}` : config.databasePath;
console.log(
  `workshop server listening on ${config.publicUrl} (port ${server.port}, database ${store}, files in ${deps.files.location})`,
);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing requests in flight, then closing the database`);
  const force = setTimeout(() => {
    console.error('shutdown took longer than 10 s; exiting');
    process.exit(1);
  }, 10_000);
  force.unref();
  stopMailLog();
  stopDigest();
  await server.close();
  await deps.database.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
