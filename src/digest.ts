/**
 * `npm run digest` (or `node dist/digest.js`): queues today's daily digest by hand, as the server's
 * own schedule does at 07:00 UTC. It only queues: a running server's mail sender delivers them. A
 * day's digest is sent once, whoever queues it first.
 */
import { ConfigError, loadConfig } from './config';
import { openStore } from './db/store';
import { queueDailyDigests } from './modules/mail/digest';

try {
  const config = loadConfig();
  const database = await openStore(config);
  try {
    const report = await queueDailyDigests({ config, database });
    if (report.ran) console.log(`queued ${report.mails} digest mails for ${report.workshops} workshops`);
    else if (report.claimInFlight)
      console.log("another instance is queueing today's digest right now; if it fails, run this again in a minute");
    else console.log("today's digest was already queued; nothing to do");
  } finally {
    await database.close();
  }
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
