/**
 * `npm run digest` (or `node dist/digest.js`): queues the daily digests due now by hand, as the
 * server's own schedule does every quarter of an hour: each time zone's once its clocks passed
 * 07:00. It only queues: a running server's mail sender delivers them. A zone's day is sent once,
 * whoever queues it first.
 */
import { ConfigError, loadConfig } from './config';
import { openStore } from './db/store';
import { queueDailyDigests } from './modules/mail/digest';

try {
  const config = loadConfig();
  const database = await openStore(config);
  try {
    const report = await queueDailyDigests({ config, database });
    if (report.ran) {
      const zones = report.zones.length === 1 ? '1 time zone' : `${report.zones.length} time zones`;
      console.log(`queued ${report.mails} digest mails for ${report.workshops} workshops in ${zones}`);
    } else if (report.claimInFlight)
      console.log('another instance is queueing a digest right now; if it fails, run this again in a minute');
    else console.log('no digest is due now (each time zone gets one a day, once 07:00 passed there); nothing to do');
  } finally {
    await database.close();
  }
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
